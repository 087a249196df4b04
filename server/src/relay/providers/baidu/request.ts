import { CUSTOM_TOOL_PARAMETERS } from '../../formats/chat/decode-tools.ts';
import type { CodecContext, HubMessage, HubPart, HubRequest, HubToolCall } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

type Msg = Record<string, unknown>;

/** Wenxin refuses a temperature of 0: its range is (0, 1]. */
const MIN_TEMPERATURE = 0.01;
/** Wenxin's smallest max_output_tokens. */
const MIN_OUTPUT_TOKENS = 2;
/** Wenxin takes at most this many stop words. */
const MAX_STOPS = 4;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * A hub request as a Wenxin Workshop chat body: the system prompt in `system`, turns as alternating user and
 * assistant messages (tool calls as `function_call`, their results as `function` messages), tools as
 * `functions`. OpenAI's 0-2 frequency penalty is spread over Wenxin's 1-2 `penalty_score`.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  const body: Record<string, unknown> = { messages: encodeMessages(req.messages) };
  const system = req.system.map((p) => p.text).join('\n');
  if (system) body.system = system;
  if (req.tools.length && req.toolChoice?.type !== 'none') {
    body.functions = req.tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: t.custom ? CUSTOM_TOOL_PARAMETERS : t.parameters,
    }));
    if (req.toolChoice?.type === 'tool')
      body.tool_choice = { type: 'function', function: { name: req.toolChoice.name } };
  }
  if (req.temperature !== undefined) body.temperature = clamp(req.temperature, MIN_TEMPERATURE, 1);
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.frequencyPenalty !== undefined) body.penalty_score = clamp(1 + req.frequencyPenalty / 2, 1, 2);
  if (req.maxTokens !== undefined) body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, req.maxTokens);
  if (req.stop?.length) body.stop = req.stop.slice(0, MAX_STOPS);
  if (req.user) body.user_id = req.user;
  if (req.responseFormat && req.responseFormat.type !== 'text') body.response_format = 'json_object';
  if (req.stream) body.stream = true;
  return body;
}

/**
 * Turns as Wenxin messages. Several tool calls of one assistant turn become one assistant message each, each
 * followed by its result (Wenxin carries one function_call per message); consecutive texts of one role join,
 * as Wenxin wants user and assistant to alternate.
 */
function encodeMessages(messages: HubMessage[]): Msg[] {
  const out: Msg[] = [];
  const answered = new Set<string>();
  const push = (m: Msg) => {
    const last = out.at(-1);
    if (last && last.role === m.role && m.role !== 'function' && !last.function_call && !m.function_call) {
      last.content = `${last.content}\n${m.content}`;
      return;
    }
    out.push(m);
  };
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      const text = textOf(m.parts);
      const calls = m.parts.filter((p): p is HubToolCall => p.type === 'tool_call');
      if (!calls.length) {
        if (text) push({ role: 'assistant', content: text });
        return;
      }
      const next = messages[i + 1];
      calls.forEach((c, n) => {
        push({
          role: 'assistant',
          content: n === 0 ? text : '',
          function_call: { name: c.name, arguments: c.args.trim() ? c.args : '{}' },
        });
        const result = next?.role === 'user' ? resultFor(next.parts, c.id) : undefined;
        if (result !== undefined) {
          answered.add(c.id);
          push({ role: 'function', name: c.name, content: result });
        }
      });
      return;
    }
    for (const p of m.parts)
      if (p.type === 'tool_result' && !answered.has(p.callId))
        push({ role: 'function', name: p.name ?? '', content: textOf(p.content) });
    const text = textOf(m.parts);
    if (text) push({ role: 'user', content: text });
  });
  return out;
}

function resultFor(parts: HubPart[], callId: string): string | undefined {
  for (const p of parts) if (p.type === 'tool_result' && p.callId === callId) return textOf(p.content);
  return undefined;
}

/** The text of some parts; images and files have no place in Wenxin's text-only chat. */
function textOf(parts: HubPart[]): string {
  const texts: string[] = [];
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') texts.push(p.text);
    else if (p.type === 'image' || p.type === 'file')
      throw badRequest('Wenxin (ERNIE) channels take text only', 'invalid_value', 'messages');
  }
  return texts.join('\n');
}
