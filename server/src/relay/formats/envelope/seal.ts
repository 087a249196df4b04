import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { UpstreamFormat } from '../hub.ts';

/**
 * A reasoning artifact an upstream issued (an Anthropic thinking signature or redacted_thinking, a Responses
 * reasoning item's encrypted_content, a Gemini thoughtSignature) with the thinking text it came with.
 */
export interface Artifact {
  /** Thinking text, exactly as the upstream gave it. */
  t: string;
  /** The upstream's signature / encrypted_content / thoughtSignature. */
  s?: string;
  /** Anthropic redacted_thinking data. */
  r?: string;
  /** A Responses reasoning item's id. */
  i?: string;
}

/**
 * The envelope: `base64(MAGIC | iv | tag | AES-256-GCM(deflate(JSON artifacts)))`, with the upstream format
 * as associated data, so an envelope opens only for a channel of the format that issued what it holds.
 * Base64 because every client format's opaque field (Gemini's thoughtSignature is bytes) accepts it.
 */
const MAGIC = Buffer.from('MGE1');
/** How every envelope's text begins (MAGIC in base64). */
export const ENVELOPE_PREFIX = 'TUdFM';
const AAD = (format: UpstreamFormat) => Buffer.from(`modelgate-reasoning:${format}`);

/** The envelope key: HKDF-SHA256 of the server's secret, for this one purpose. */
export function envelopeKey(secret: string): Buffer {
  const ikm = createHash('sha256').update(secret).digest();
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'modelgate reasoning envelope v1', 32));
}

export function seal(key: Buffer, format: UpstreamFormat, artifacts: Artifact[]): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD(format));
  const body = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(artifacts))), cipher.final()]);
  return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]).toString('base64');
}

/** Does this signature look like one of the gateway's envelopes (whether or not it verifies)? */
export function isEnvelope(sig: string): boolean {
  return (
    sig.startsWith(ENVELOPE_PREFIX) && Buffer.from(sig.slice(0, 8), 'base64').subarray(0, 4).equals(MAGIC)
  );
}

/** The artifacts an envelope holds, or null when it does not verify for this upstream format. */
export function open(key: Buffer, format: UpstreamFormat, sig: string): Artifact[] | null {
  const raw = Buffer.from(sig, 'base64');
  if (raw.length < 33 || !raw.subarray(0, 4).equals(MAGIC)) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(4, 16));
    decipher.setAAD(AAD(format));
    decipher.setAuthTag(raw.subarray(16, 32));
    const plain = Buffer.concat([decipher.update(raw.subarray(32)), decipher.final()]);
    const list = JSON.parse(inflateRawSync(plain).toString());
    return Array.isArray(list) ? (list as Artifact[]) : null;
  } catch {
    return null;
  }
}
