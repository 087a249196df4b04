import { RelayError } from '../../relay-error.ts';
import { newId, notAnAnswer, packCallId, unpackCallId } from '../common.ts';
import type { CodecContext, HubPart, HubResponse, HubToolCall } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorOf } from './errors.ts';
import { finishReason, hubStop } from './stop.ts';
import { decodeUsage, encodeUsage } from './usage.ts';

/** Thinking text under the names the compatible servers use: reasoning_content (DeepSeek, xAI) or reasoning. */
export const reasoningOf = (o: Obj): string => {
  const r = [o.reasoning_content, o.reasoning].find((v) => typeof v === 'string' && v);
  return typeof r === 'string' ? r : '';
};

/**
 * A message's content: a string, or (Mistral's reasoning models) an array of text and thinking chunks,
 * as hub text and thinking parts in order.
 */
export function contentParts(content: unknown): HubPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: HubPart[] = [];
  for (const c of content) {
    if (!isObj(c)) continue;
    if (c.type === 'text' && typeof c.text === 'string' && c.text) out.push({ type: 'text', text: c.text });
    else if (c.type === 'thinking') {
      // Mistral nests the thinking text one level down: thinking: [{type: 'text', text}].
      const inner = Array.isArray(c.thinking) ? c.thinking : [];
      const text = inner.map((t) => (isObj(t) && typeof t.text === 'string' ? t.text : '')).join('');
      if (text) out.push({ type: 'thinking', text });
    }
  }
  return out;
}

/** One tool call of an answer (Mistral leaves out `type`; a custom tool call carries raw input). */
function toolCallOf(tc: unknown): HubToolCall | null {
  if (!isObj(tc)) return null;
  const id = typeof tc.id === 'string' && tc.id ? tc.id : newId('call_');
  if (tc.type === 'custom' && isObj(tc.custom)) {
    const input = typeof tc.custom.input === 'string' ? tc.custom.input : '';
    return {
      type: 'tool_call',
      id,
      name: String(tc.custom.name ?? ''),
      args: JSON.stringify({ input }),
      custom: true,
    };
  }
  const fn = isObj(tc.function) ? tc.function : {};
  const args =
    typeof fn.arguments === 'string' ? fn.arguments : isObj(fn.arguments) ? JSON.stringify(fn.arguments) : '';
  return { type: 'tool_call', id, name: typeof fn.name === 'string' ? fn.name : '', args };
}

/** An upstream's chat.completion as a hub response (the first choice: the hub carries one answer). */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (isObj(body.error) && !Array.isArray(body.choices)) {
    const e = errorOf(body.error, 0);
    throw new RelayError(e.status, e.message, 'upstream_error', e.code ?? null, e.param ?? null, false);
  }
  const choice = Array.isArray(body.choices) && isObj(body.choices[0]) ? body.choices[0] : {};
  const msg = isObj(choice.message) ? choice.message : {};
  const parts: HubPart[] = [];
  const thinking = reasoningOf(msg);
  if (thinking) parts.push({ type: 'thinking', text: thinking });
  parts.push(...contentParts(msg.content));
  if (typeof msg.refusal === 'string' && msg.refusal) parts.push({ type: 'refusal', text: msg.refusal });
  const calls = [
    ...(Array.isArray(msg.tool_calls) ? msg.tool_calls : []),
    ...(isObj(msg.function_call) ? [{ function: msg.function_call }] : []),
  ];
  for (const tc of calls) {
    const call = toolCallOf(tc);
    if (call) parts.push(call);
  }
  const hasCalls = parts.some((p) => p.type === 'tool_call');
  return {
    id: typeof body.id === 'string' && body.id ? body.id : newId('chatcmpl-'),
    model: typeof body.model === 'string' && body.model ? body.model : ctx.model,
    created:
      typeof body.created === 'number' && body.created > 0 ? body.created : Math.floor(Date.now() / 1000),
    parts,
    stop: hubStop(choice.finish_reason, hasCalls),
    usage: decodeUsage(body.usage),
  };
}

/** A hub tool call as the client sees it; a Gemini signature rides in the id (the client echoes ids back). */
export function clientCallId(c: { id: string; signature?: string; signatureFormat?: string }): string {
  return c.signatureFormat === 'gemini' && !unpackCallId(c.id).signature
    ? packCallId(c.id, c.signature)
    : c.id;
}

/**
 * A hub response as a chat.completion. Thinking goes out as reasoning_content (what DeepSeek and xAI
 * clients read); its signature, redacted thinking and other formats' opaque parts have no place in chat (an
 * upstream's reasoning artifacts reach chat clients sealed inside the next tool call's id, see envelope/).
 */
export function encodeResponse(res: HubResponse, _ctx: CodecContext): unknown {
  const text = res.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const thinking = res.parts.flatMap((p) => (p.type === 'thinking' ? [p.text] : [])).join('');
  const refusal = res.parts.flatMap((p) => (p.type === 'refusal' ? [p.text] : [])).join('');
  const toolCalls = res.parts.flatMap((p) => (p.type === 'tool_call' ? [toolCallOut(p)] : []));
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text || (toolCalls.length || refusal || res.promptBlocked ? null : ''),
    refusal: refusal || null,
  };
  if (thinking) message.reasoning_content = thinking;
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    id: res.id || newId('chatcmpl-'),
    object: 'chat.completion',
    created: res.created,
    model: res.model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: res.promptBlocked ? 'content_filter' : finishReason(res.stop, toolCalls.length > 0),
        logprobs: null,
      },
    ],
    usage: encodeUsage(res.usage),
  };
}

function toolCallOut(c: HubToolCall): Record<string, unknown> {
  const id = clientCallId(c);
  return c.custom
    ? { id, type: 'custom', custom: { name: c.name, input: customInput(c.args) } }
    : { id, type: 'function', function: { name: c.name, arguments: c.args || '{}' } };
}

/** The raw input of a custom tool call, whose hub args are `{"input": "..."}`. */
export function customInput(args: string): string {
  try {
    const v = JSON.parse(args);
    return typeof v?.input === 'string' ? v.input : args;
  } catch {
    return args;
  }
}
