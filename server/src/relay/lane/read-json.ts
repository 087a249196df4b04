import type { IncomingMessage } from 'node:http';
import sjson from 'secure-json-parse';
import { RelayError } from '../errors.ts';

const tooLarge = () =>
  new RelayError(413, 'request body is too large', 'invalid_request_error', 'request_too_large');
const invalidJson = () =>
  new RelayError(400, 'invalid JSON in request body', 'invalid_request_error', 'invalid_request');

/** `application/json`, with or without parameters such as charset. */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** Reads the body up to `limit` bytes (413 beyond) and parses it as JSON (400 when empty or malformed). */
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
      const text = chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString();
      try {
        resolve(parse(text));
      } catch {
        reject(invalidJson());
      }
    });
  });
}

/** JSON.parse, refusing prototype poisoning as Fastify's parser does; the safe parser runs only when needed. */
function parse(text: string): unknown {
  if (text === '') throw invalidJson();
  if (text.includes('__proto__') || text.includes('constructor'))
    return sjson.parse(text, null, { protoAction: 'error', constructorAction: 'error' });
  return JSON.parse(text);
}
