import type { Readable } from 'node:stream';
import { PassThrough, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { badRequest, RelayError } from '../relay-error.ts';

/** The decompressor for a request's Content-Encoding: null when the body is not encoded, undefined when unsupported. */
function decoderFor(encoding: string | undefined): Transform | null | undefined {
  const e = (encoding ?? '').trim().toLowerCase();
  if (!e || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return createGunzip();
  if (e === 'br') return createBrotliDecompress();
  return undefined;
}

/**
 * Request decompression for the relay (Content-Encoding gzip or br, as clients that compress large prompts
 * send): the body limit applies to the decompressed bytes, so a small compressed body cannot expand past it.
 * Returns the stream Fastify should parse; a corrupt body becomes a 400, an unknown encoding a 415.
 */
export function decodeRequestBody(encoding: string | undefined, payload: Readable): Readable | RelayError {
  const decoder = decoderFor(encoding);
  if (decoder === null) return payload;
  if (decoder === undefined)
    return new RelayError(
      415,
      `unsupported Content-Encoding ${encoding}: send gzip, br or an uncompressed body`,
      'invalid_request_error',
      'unsupported_content_encoding',
    );
  // Fastify compares `receivedEncodedLength` with Content-Length and the decoded bytes with the body limit.
  const out = new PassThrough() as PassThrough & { receivedEncodedLength: number };
  out.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    out.receivedEncodedLength += chunk.length;
  });
  decoder.on('error', () =>
    out.destroy(badRequest(`the ${encoding} request body could not be decompressed`)),
  );
  payload.on('error', (err) => out.destroy(err));
  payload.pipe(decoder).pipe(out);
  out.on('close', () => {
    if (!decoder.destroyed) decoder.destroy();
  });
  return out;
}
