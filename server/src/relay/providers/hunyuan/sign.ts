import { createHash, createHmac } from 'node:crypto';

export const SERVICE = 'hunyuan';
export const API_VERSION = '2023-09-01';

/** The parts of a Hunyuan channel key, `AppId|SecretId|SecretKey`. */
export interface Credentials {
  appId: string;
  secretId: string;
  secretKey: string;
}

const KEY_SHAPE = 'Tencent Hunyuan keys look like AppId|SecretId|SecretKey (the AppId is a number)';

export function parseKey(key: string): Credentials {
  const parts = key.split('|').map((p) => p.trim());
  if (parts.length !== 3 || parts.some((p) => !p || /\s/.test(p)) || !/^\d+$/.test(parts[0]))
    throw new Error(KEY_SHAPE);
  return { appId: parts[0], secretId: parts[1], secretKey: parts[2] };
}

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest();

/**
 * Tencent Cloud's TC3-HMAC-SHA256 Authorization header for a POST to `/` with signed headers
 * content-type and host: canonical request -> string to sign -> key derived date -> service -> tc3_request.
 */
export function tc3Authorization(o: {
  secretId: string;
  secretKey: string;
  host: string;
  contentType: string;
  timestamp: number;
  body: string | Buffer;
}): string {
  const date = new Date(o.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonical = [
    'POST',
    '/',
    '',
    `content-type:${o.contentType.trim().toLowerCase()}\nhost:${o.host.trim().toLowerCase()}\n`,
    signedHeaders,
    sha256(o.body),
  ].join('\n');
  const scope = `${date}/${SERVICE}/tc3_request`;
  const toSign = ['TC3-HMAC-SHA256', String(o.timestamp), scope, sha256(canonical)].join('\n');
  const signing = hmac(hmac(hmac(`TC3${o.secretKey}`, date), SERVICE), 'tc3_request');
  const signature = createHmac('sha256', signing).update(toSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${o.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
