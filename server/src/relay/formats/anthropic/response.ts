import { RelayError } from '../../relay-error.ts';
import { clientCallId } from '../chat/response.ts';
import { argsObject, newId, notAnAnswer } from '../common.ts';
import type { CodecContext, HubPart, HubResponse, HubThinking, HubToolCall } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorOf } from './errors.ts';
import { hubStop, stopReason } from './stop.ts';
import { decodeUsage, encodeUsage } from './usage.ts';

/** One block of an Anthropic answer as hub parts. */
export function blockPart(b: Obj): HubPart | null {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' && b.text ? { type: 'text', text: b.text } : null;
    case 'thinking': {
      const text = typeof b.thinking === 'string' ? b.thinking : '';
      const signature = typeof b.signature === 'string' ? b.signature : '';
      if (!text && !signature) return null;
      return {
        type: 'thinking',
        text,
        ...(signature ? { signature, signatureFormat: 'anthropic' as const } : {}),
      };
    }
    case 'redacted_thinking':
      return typeof b.data === 'string' ? { type: 'thinking', text: '', redacted: b.data } : null;
    case 'tool_use':
      return {
        type: 'tool_call',
        id: typeof b.id === 'string' && b.id ? b.id : newId('toolu_'),
        name: typeof b.name === 'string' ? b.name : '',
        args: isObj(b.input) ? JSON.stringify(b.input) : typeof b.input === 'string' ? b.input : '{}',
      };
    default:
      // server_tool_use, web_search_tool_result and other blocks only Anthropic's format can carry.
      return typeof b.type === 'string' ? { type: 'opaque', format: 'anthropic', value: b } : null;
  }
}

/** An upstream's Message as a hub response. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (body.type === 'error' && isObj(body.error)) {
    const e = errorOf(body.error, 0);
    throw new RelayError(e.status, e.message, 'upstream_error', e.code ?? null, null, false);
  }
  const parts: HubPart[] = [];
  for (const b of Array.isArray(body.content) ? body.content : []) {
    const p = isObj(b) ? blockPart(b) : null;
    if (p) parts.push(p);
  }
  const hasCalls = parts.some((p) => p.type === 'tool_call');
  const stop = hubStop(body.stop_reason, hasCalls);
  return {
    id: typeof body.id === 'string' && body.id ? body.id : newId('msg_'),
    model: typeof body.model === 'string' && body.model ? body.model : ctx.model,
    created: Math.floor(Date.now() / 1000),
    parts,
    stop,
    ...(stop === 'stop_sequence' && typeof body.stop_sequence === 'string'
      ? { stopSequence: body.stop_sequence }
      : {}),
    usage: decodeUsage(body.usage),
  };
}

/** A message id as Anthropic clients expect it (`msg_...`); another format's id is kept after the prefix. */
export const messageId = (id: string) => (!id ? newId('msg_') : id.startsWith('msg_') ? id : `msg_${id}`);

/**
 * A thinking part as a block. Anthropic's signature goes as is; thinking from another format goes with an
 * empty signature: its text is worth showing, and an empty signature is no claim (this codec reads it back
 * as unsigned and never replays unsigned thinking to Anthropic). Redacted thinking stays redacted.
 */
export function thinkingBlock(p: HubThinking): Obj | null {
  if (p.redacted) return { type: 'redacted_thinking', data: p.redacted };
  const signature = p.signatureFormat === 'anthropic' && p.signature ? p.signature : '';
  if (!p.text && !signature) return null;
  return { type: 'thinking', thinking: p.text, signature };
}

/** A tool call as a tool_use block; a Gemini signature rides in the id (the client echoes ids back). */
export const toolUseBlock = (c: HubToolCall) => ({
  type: 'tool_use',
  id: clientCallId(c),
  name: c.name,
  input: argsObject(c.args),
});

/**
 * A hub response as a Message. No empty text blocks; refusal text goes as text (Messages has no refusal
 * block, the stop_reason says refusal); images and files an answer may carry have no block in a Message.
 */
export function encodeResponse(res: HubResponse, _ctx: CodecContext): unknown {
  const content: Obj[] = [];
  for (const p of res.parts) {
    if (p.type === 'text' || p.type === 'refusal') {
      if (!p.text) continue;
      const last = content.at(-1);
      if (last?.type === 'text') last.text = `${last.text}${p.text}`;
      else content.push({ type: 'text', text: p.text });
    } else if (p.type === 'thinking') {
      const b = thinkingBlock(p);
      if (b) content.push(b);
    } else if (p.type === 'tool_call') content.push(toolUseBlock(p));
    else if (p.type === 'opaque' && p.format === 'anthropic' && isObj(p.value)) content.push(p.value);
  }
  const hasCalls = content.some((b) => b.type === 'tool_use');
  return {
    id: messageId(res.id),
    type: 'message',
    role: 'assistant',
    model: res.model,
    content,
    stop_reason: stopReason(res.stop, hasCalls, res.promptBlocked),
    stop_sequence: res.stop === 'stop_sequence' ? (res.stopSequence ?? null) : null,
    usage: encodeUsage(res.usage),
  };
}
