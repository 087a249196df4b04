import { afterAll, beforeAll } from 'vitest';

/** Has the describe block's afterAll close what it is given (the last given first); returns it. */
export type CloseAfter = <T extends { close(): Promise<unknown> }>(started: T) => T;

/**
 * What a describe block's tests work with (a gateway, its upstreams, the rows and calls they need), made by
 * `setUp` in the block's beforeAll: the object returned here is empty until then. What `setUp` hands to
 * `closeAfter` is closed in the block's afterAll, the last started first, even when `setUp` failed halfway.
 */
export function perDescribe<T extends object>(setUp: (closeAfter: CloseAfter) => Promise<T>): T {
  const made = {} as T;
  const started: Array<{ close(): Promise<unknown> }> = [];
  beforeAll(async () => {
    Object.assign(
      made,
      await setUp((s) => {
        started.unshift(s);
        return s;
      }),
    );
  });
  afterAll(async () => {
    for (const s of started) await s.close();
  });
  return made;
}
