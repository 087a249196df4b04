import type { HubThinking, UpstreamFormat, WireFormat } from '../hub.ts';
import type { Artifact } from './seal.ts';

/**
 * Client formats with a field the client echoes back unchanged that can hold an envelope: a Responses
 * reasoning item's encrypted_content, an Anthropic thinking block's signature, a Gemini thoughtSignature.
 * OpenAI chat has none.
 */
const CARRIERS = new Set<WireFormat>(['responses', 'anthropic', 'gemini']);
/** Upstream formats that issue reasoning artifacts. */
const ISSUERS = new Set<UpstreamFormat>(['responses', 'anthropic', 'gemini']);

/** Whether an answer from `upstream` to a `client` of another format has its artifacts sealed. */
export const sealsBetween = (upstream: UpstreamFormat, client: WireFormat) =>
  upstream !== client && CARRIERS.has(client) && ISSUERS.has(upstream);

/** The artifact a thinking part carries from its upstream, or null when it carries none. */
export function artifactOf(p: HubThinking, upstream: UpstreamFormat): Artifact | null {
  if (p.redacted !== undefined) return upstream === 'anthropic' ? { t: '', r: p.redacted } : null;
  if (!p.signature || p.signatureFormat !== upstream) return null;
  return { t: p.text, s: p.signature, ...(p.itemId ? { i: p.itemId } : {}) };
}

/** An artifact as the thinking part its upstream issued. */
export function thinkingOf(a: Artifact, upstream: WireFormat): HubThinking {
  if (typeof a.r === 'string') return { type: 'thinking', text: '', redacted: a.r };
  return {
    type: 'thinking',
    text: typeof a.t === 'string' ? a.t : '',
    ...(typeof a.s === 'string' ? { signature: a.s, signatureFormat: upstream } : {}),
    ...(typeof a.i === 'string' ? { itemId: a.i } : {}),
  };
}
