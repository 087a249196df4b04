import type { IncomingMessage } from 'node:http';
import { RelayError } from '../../relay-error.ts';
import { parseJsonBody } from '../json-body.ts';

const tooLarge = () =>
  new RelayError(413, 'request body is too large', 'invalid_request_error', 'request_too_large');

/** `application/json`, with or without parameters such as charset. */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** Reads the body up to `limit` bytes (413 beyond) and parses it as JSON (400 when empty, malformed or too deep). */
export function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      if (size > limit) return;
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      try {
        resolve(parseJsonBody(bytes.toString(), bytes));
      } catch (err) {
        reject(err);
      }
    });
  });
}
