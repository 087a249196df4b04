import type { HubPart, UpstreamFormat, WireFormat } from '../hub.ts';
import { artifactOf, ridesOnCalls, sealsBetween, withEnvelope } from './artifacts.ts';
import { type Artifact, seal } from './seal.ts';

/**
 * An answer's parts with each reasoning artifact of the upstream sealed into the client format's own field:
 * the thinking part keeps its text and gets the envelope as a signature of the client's format. For Gemini
 * and chat clients (ridesOnCalls) the artifacts before a call ride on that call; after the last call, a
 * Gemini client gets them on a signature part of their own, a chat client not at all (a turn that calls no
 * tool needs no thinking replayed).
 */
export function sealAnswer(
  parts: HubPart[],
  upstream: UpstreamFormat,
  client: WireFormat,
  key: Buffer | undefined,
): HubPart[] {
  if (!key || !sealsBetween(upstream, client)) return parts;
  const out: HubPart[] = [];
  let pending: Artifact[] = [];
  for (const p of parts) {
    const a = p.type === 'thinking' ? artifactOf(p, upstream) : null;
    if (p.type === 'thinking' && a) {
      if (!ridesOnCalls(client))
        out.push({
          type: 'thinking',
          text: p.text,
          signature: seal(key, upstream, [a]),
          signatureFormat: client,
        });
      else {
        pending.push(a);
        if (p.text) out.push({ type: 'thinking', text: p.text });
      }
    } else if (p.type === 'tool_call' && pending.length) {
      out.push(withEnvelope(p, client, seal(key, upstream, pending)));
      pending = [];
    } else out.push(p);
  }
  if (pending.length && client === 'gemini')
    out.push({
      type: 'thinking',
      text: '',
      signature: seal(key, upstream, pending),
      signatureFormat: 'gemini',
    });
  return out;
}
