import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

/** A channel key `AccessKeyId|SecretAccessKey|Region`. */
export interface AwsKey {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export const KEY_SHAPE = 'AccessKeyId|SecretAccessKey|Region (e.g. AKIA...|wJalr...|us-east-1)';

const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

/** The three parts of a key; throws an Error naming the expected shape (never echoing the key). */
export function parseKey(key: string): AwsKey {
  const parts = key.split('|').map((p) => p.trim());
  if (parts.length !== 3 || parts.some((p) => !p || /\s/.test(p)))
    throw new Error(`AWS Claude keys must be ${KEY_SHAPE}`);
  const [accessKeyId, secretAccessKey, region] = parts;
  if (!ACCESS_KEY_ID.test(accessKeyId))
    throw new Error(`the access key id must be 16 or more capital letters and digits: ${KEY_SHAPE}`);
  if (!REGION.test(region))
    throw new Error(`the third part must be an AWS region such as us-east-1: ${KEY_SHAPE}`);
  return { accessKeyId, secretAccessKey, region };
}

/**
 * SigV4 headers (`authorization`, `x-amz-date`, `x-amz-content-sha256`) for one call to `service` in the
 * key's region. Only the host is signed besides those: the relay sets content-type and accept after this.
 */
export async function signedHeaders(
  key: AwsKey,
  service: string,
  method: 'GET' | 'POST',
  url: string,
  body: string | Buffer | undefined,
): Promise<Record<string, string>> {
  const u = new URL(url);
  const signer = new SignatureV4({
    service,
    region: key.region,
    credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey },
    sha256: Sha256,
  });
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of u.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  const signed = await signer.sign({
    method,
    protocol: u.protocol,
    hostname: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    // The path as it goes on the wire (model ids percent-encoded); the signer encodes it once more, as AWS does.
    path: u.pathname,
    query,
    headers: { host: u.host },
    body,
  });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(signed.headers)) if (k !== 'host') out[k] = String(v);
  return out;
}
