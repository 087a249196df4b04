import type { HubPart, UpstreamFormat, WireFormat } from '../hub.ts';
import { artifactOf, sealsBetween } from './artifacts.ts';
import { type Artifact, seal } from './seal.ts';

/**
 * An answer's parts with each reasoning artifact of the upstream sealed into the client format's own field:
 * the thinking part keeps its text and gets the envelope as a signature of the client's format. A Gemini
 * client keeps only the thoughtSignature of a step's first function call in its history (Gemini CLI drops
 * thought parts), so there the artifacts before a call ride on that call; those after the last call on a
 * signature part of their own.
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
      if (client !== 'gemini')
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
      out.push({ ...p, signature: seal(key, upstream, pending), signatureFormat: 'gemini' });
      pending = [];
    } else out.push(p);
  }
  if (pending.length)
    out.push({
      type: 'thinking',
      text: '',
      signature: seal(key, upstream, pending),
      signatureFormat: 'gemini',
    });
  return out;
}
