import type { HubEvent, HubStreamEncoder, UpstreamFormat, WireFormat } from '../hub.ts';
import { ridesOnCalls, sealsBetween, withEnvelope } from './artifacts.ts';
import { type Artifact, seal } from './seal.ts';

/**
 * The client's stream encoder behind a step that seals the upstream's reasoning artifacts as they pass (the
 * stream form of sealAnswer): a signature event ends a thinking block, and the text since the block began
 * goes into the envelope with it. For Gemini and chat clients the envelope waits for the next tool call.
 */
export function sealingEncoder(
  inner: HubStreamEncoder,
  upstream: UpstreamFormat,
  client: WireFormat,
  key: Buffer | undefined,
): HubStreamEncoder {
  if (!key || !sealsBetween(upstream, client)) return inner;
  let text = '';
  let pending: Artifact[] = [];
  const sealed = (list: Artifact[]) => seal(key, upstream, list);

  function artifact(a: Artifact): string {
    text = '';
    if (ridesOnCalls(client)) {
      pending.push(a);
      return '';
    }
    return inner.push({ type: 'thinking_signature', signature: sealed([a]), format: client });
  }

  function flush(): string {
    if (!pending.length || client !== 'gemini') return '';
    const signature = sealed(pending);
    pending = [];
    return inner.push({ type: 'thinking_signature', signature, format: 'gemini' });
  }

  return {
    push(ev: HubEvent): string {
      switch (ev.type) {
        case 'thinking':
          text += ev.text;
          return inner.push(ev);
        case 'thinking_signature':
          if (ev.format !== upstream) return inner.push(ev);
          return artifact({ t: text, s: ev.signature, ...(ev.itemId ? { i: ev.itemId } : {}) });
        case 'redacted_thinking':
          return upstream === 'anthropic' ? artifact({ t: '', r: ev.data }) : inner.push(ev);
        case 'tool_call': {
          text = '';
          if (!pending.length) return inner.push(ev);
          const signature = sealed(pending);
          pending = [];
          return inner.push(withEnvelope(ev, client, signature));
        }
        case 'finish':
        case 'error':
          return flush() + inner.push(ev);
        case 'usage':
          return inner.push(ev);
        default:
          text = '';
          return inner.push(ev);
      }
    },
    end(): string {
      return flush() + inner.end();
    },
  };
}
