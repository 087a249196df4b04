/** What a test file opened through the support helpers and must close after its last test, newest first. */
const pending: (() => Promise<void>)[] = [];

export function closeAtEnd(close: () => Promise<void>) {
  pending.push(close);
}

/** Runs from the e2e project's setup file after each file's own afterAll hooks. */
export async function closeAll() {
  const errors: unknown[] = [];
  while (pending.length) {
    const close = pending.pop() as () => Promise<void>;
    await close().catch((err: unknown) => errors.push(err));
  }
  if (errors.length) throw errors[0];
}
