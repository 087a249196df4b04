import { Readable } from 'node:stream';
import type { UpstreamResponse } from './types.ts';

/** A response body made of chunks the gateway produces (decoded or transported streams), readable as text too. */
export function bodyOf(chunks: AsyncIterable<Buffer> | Iterable<Buffer>): UpstreamResponse['body'] {
  const body = Readable.from(chunks, { objectMode: false }) as Readable & { text(): Promise<string> };
  body.text = async () => {
    const parts: Buffer[] = [];
    for await (const c of body) parts.push(c as Buffer);
    return Buffer.concat(parts).toString('utf8');
  };
  return body as unknown as UpstreamResponse['body'];
}

/** A whole answer as a response (a provider whose transport is not HTTP). */
export function responseOf(
  statusCode: number,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
): UpstreamResponse {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: bodyOf(chunks) };
}
