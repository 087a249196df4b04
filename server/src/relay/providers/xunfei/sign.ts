import { createHmac } from 'node:crypto';
import type { SparkKey } from './key.ts';

/**
 * iFlytek's URL authentication: an HMAC-SHA256 (keyed by the APISecret) over the host, the RFC 1123 date and
 * the request line, wrapped with the APIKey in a base64 `authorization` that goes in the query with `date`
 * and `host`. The server refuses a date more than a few minutes off its clock.
 */
export function signedUrl(url: string, key: SparkKey, now = new Date()): string {
  const u = new URL(url);
  const date = now.toUTCString();
  const origin = `host: ${u.host}\ndate: ${date}\nGET ${u.pathname} HTTP/1.1`;
  const signature = createHmac('sha256', key.apiSecret).update(origin).digest('base64');
  const authorization = Buffer.from(
    `api_key="${key.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
  ).toString('base64');
  u.search = new URLSearchParams({ authorization, date, host: u.host }).toString();
  return u.toString();
}
