import type { UpstreamBody } from '../call/upstream-response.ts';
import type { UpstreamResponse } from './types.ts';

/** A response body made of chunks the gateway produces (decoded or transported streams), readable as text too. */
export function bodyOf(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): UpstreamBody {
  async function* all() {
    yield* chunks;
  }
  return {
    [Symbol.asyncIterator]: () => all(),
    async text() {
      const parts: Buffer[] = [];
      for await (const c of chunks) parts.push(c);
      return Buffer.concat(parts).toString('utf8');
    },
  };
}

/** A whole answer as a response (a provider whose transport is not HTTP). */
export function responseOf(
  statusCode: number,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
): UpstreamResponse {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: bodyOf(chunks) };
}
