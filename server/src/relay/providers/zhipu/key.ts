import { createHmac } from 'node:crypto';
import { RelayError } from '../../relay-error.ts';

export const KEY_SHAPE = 'id.secret (the API key from open.bigmodel.cn, e.g. 2f9c...e1a3.Xy7...Qz)';

/** How long a signed token is valid, and how long before that it is replaced. */
const TTL_MS = 60 * 60 * 1000;
const RENEW_MS = 5 * 60 * 1000;

const tokens = new Map<string, { token: string; exp: number }>();

/** The two parts of a key; throws an Error naming the expected shape (never echoing the key). */
export function parseKey(key: string): { id: string; secret: string } {
  const parts = key.trim().split('.');
  if (parts.length !== 2 || parts.some((p) => !p || /\s/.test(p)))
    throw new Error(`Zhipu ChatGLM keys must be ${KEY_SHAPE}`);
  return { id: parts[0], secret: parts[1] };
}

/**
 * The v3 API's Authorization value: a JWT signed HS256 with the key's secret, header `sign_type: SIGN`, claims
 * `api_key` (the key's id), `exp` and `timestamp` in milliseconds. Cached per key until shortly before exp.
 */
export function zhipuToken(key: string, now = Date.now()): string {
  const hit = tokens.get(key);
  if (hit && hit.exp - RENEW_MS > now) return hit.token;
  let parsed: { id: string; secret: string };
  try {
    parsed = parseKey(key);
  } catch (err) {
    throw new RelayError(401, (err as Error).message, 'upstream_error', 'invalid_channel_key', null, false);
  }
  const exp = now + TTL_MS;
  const token = signHs256(
    { alg: 'HS256', sign_type: 'SIGN', typ: 'JWT' },
    { api_key: parsed.id, exp, timestamp: now },
    parsed.secret,
  );
  tokens.set(key, { token, exp });
  return token;
}

const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

function signHs256(header: object, payload: object, secret: string): string {
  const input = `${part(header)}.${part(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}
