import type { HubThinking, UpstreamFormat, WireFormat } from '../hub.ts';
import { packEnvelopeId } from './call-id.ts';
import type { Artifact } from './seal.ts';

/**
 * Client formats with a field the client echoes back unchanged that can hold an envelope: a Responses
 * reasoning item's encrypted_content, an Anthropic thinking block's signature, a Gemini thoughtSignature;
 * OpenAI chat has none of its own, and its tool-call ids carry it.
 */
const CARRIERS = new Set<WireFormat>(['responses', 'anthropic', 'gemini', 'openai']);
/** Upstream formats that issue reasoning artifacts. */
const ISSUERS = new Set<UpstreamFormat>(['responses', 'anthropic', 'gemini']);

/** Whether an answer from `upstream` to a `client` of another format has its artifacts sealed. */
export const sealsBetween = (upstream: UpstreamFormat, client: WireFormat) =>
  upstream !== client && CARRIERS.has(client) && ISSUERS.has(upstream);

/**
 * Clients whose envelopes ride on the next tool call: Gemini clients keep only the thoughtSignature of a
 * step's first function call (Gemini CLI drops thought parts from its history), chat clients only call ids.
 */
export const ridesOnCalls = (client: WireFormat) => client === 'gemini' || client === 'openai';

/** A tool call (part or stream event) carrying an envelope the way its client keeps it. */
export function withEnvelope<C extends { id: string }>(call: C, client: WireFormat, envelope: string): C {
  if (client === 'openai') return { ...call, id: packEnvelopeId(call.id, envelope) };
  return { ...call, signature: envelope, signatureFormat: 'gemini' };
}

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
