import type { HubMessage, HubPart, HubRequest, UpstreamFormat, WireFormat } from '../hub.ts';
import { thinkingOf } from './artifacts.ts';
import { isEnvelope, open } from './seal.ts';

/**
 * A request with the envelopes its client sent back opened: each becomes the thinking the upstream issued,
 * text and signature, in the place it was (before the function call a Gemini client kept it on). An envelope
 * that does not verify for this upstream's format (forged, or sealed for a channel of another format) is
 * dropped like any signature the upstream could not verify. The request given is not changed (a retry on
 * another channel opens it again for that channel's format).
 */
export function openEnvelopes(
  req: HubRequest,
  client: WireFormat,
  upstream: UpstreamFormat,
  key: Buffer | undefined,
): HubRequest {
  if (!req.messages.some((m) => m.parts.some((p) => envelopeOf(p, client)))) return req;
  const messages = req.messages.map((m): HubMessage => {
    if (!m.parts.some((p) => envelopeOf(p, client))) return m;
    const parts: HubPart[] = [];
    for (const p of m.parts) {
      const sig = envelopeOf(p, client);
      if (!sig) {
        parts.push(p);
        continue;
      }
      const artifacts = (key && upstream !== client ? open(key, upstream, sig) : null) ?? [];
      if (
        m.role === 'assistant' &&
        (upstream === 'anthropic' || upstream === 'responses' || upstream === 'gemini')
      )
        parts.push(...artifacts.map((a) => thinkingOf(a, upstream)));
      if (p.type === 'tool_call') {
        const { signature: _s, signatureFormat: _f, ...call } = p;
        parts.push(call);
      }
    }
    return { ...m, parts };
  });
  return { ...req, messages };
}

/** The envelope a part carries in its client format's field, if any. */
function envelopeOf(p: HubPart, client: WireFormat): string | undefined {
  if (p.type !== 'thinking' && p.type !== 'tool_call') return undefined;
  return p.signature && p.signatureFormat === client && isEnvelope(p.signature) ? p.signature : undefined;
}
