import type { HubMessage, HubPart, HubRequest, UpstreamFormat, WireFormat } from '../hub.ts';
import { thinkingOf } from './artifacts.ts';
import { unpackEnvelopeId } from './call-id.ts';
import { type Artifact, isEnvelope, open } from './seal.ts';

/**
 * A request with the envelopes its client sent back opened: each becomes the thinking the upstream issued,
 * text and signature, in the place it was (before the tool call a Gemini or chat client kept it on), and a
 * chat client's call ids lose the envelope they carried. An envelope that does not verify for this
 * upstream's format (forged, or sealed for a channel of another format) is dropped like any signature the
 * upstream could not verify. The request given is not changed (a retry on another channel opens it again).
 */
export function openEnvelopes(
  req: HubRequest,
  client: WireFormat,
  upstream: UpstreamFormat,
  key: Buffer | undefined,
): HubRequest {
  if (!req.messages.some((m) => m.parts.some((p) => carries(p, client)))) return req;
  const restore = (sig: string): HubPart[] => {
    const list: Artifact[] = (key && open(key, upstream, sig)) || [];
    return upstream === 'anthropic' || upstream === 'responses' || upstream === 'gemini'
      ? list.map((a) => thinkingOf(a, upstream))
      : [];
  };
  const messages = req.messages.map((m): HubMessage => {
    if (!m.parts.some((p) => carries(p, client))) return m;
    const parts: HubPart[] = [];
    for (const p of m.parts) {
      if (p.type === 'tool_result') {
        parts.push({ ...p, callId: unpackEnvelopeId(p.callId).id });
        continue;
      }
      if (p.type !== 'thinking' && p.type !== 'tool_call') {
        parts.push(p);
        continue;
      }
      const sig =
        p.signatureFormat === client && p.signature && isEnvelope(p.signature) ? p.signature : undefined;
      if (p.type === 'thinking') {
        parts.push(...(sig ? restore(sig) : [p]));
        continue;
      }
      const { id, envelope } = unpackEnvelopeId(p.id);
      for (const s of [sig, envelope]) if (s && m.role === 'assistant') parts.push(...restore(s));
      if (!sig) parts.push({ ...p, id });
      else {
        const { signature: _s, signatureFormat: _f, ...call } = p;
        parts.push({ ...call, id });
      }
    }
    return { ...m, parts };
  });
  return { ...req, messages };
}

/** Whether a part carries an envelope (in its client format's field, or in a chat call id) or refers to one. */
function carries(p: HubPart, client: WireFormat): boolean {
  if (p.type === 'tool_result') return unpackEnvelopeId(p.callId).envelope !== undefined;
  if (p.type !== 'thinking' && p.type !== 'tool_call') return false;
  if (p.type === 'tool_call' && unpackEnvelopeId(p.id).envelope !== undefined) return true;
  return !!p.signature && p.signatureFormat === client && isEnvelope(p.signature);
}
