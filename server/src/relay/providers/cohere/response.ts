import { isObj } from '../../formats/chat/check.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubPart, HubResponse } from '../../formats/hub.ts';
import { RelayError } from '../../relay-error.ts';
import { finishError } from './errors.ts';
import { decodeUsage, hubStop } from './usage.ts';

/**
 * Cohere's chat answer (`{id, message:{role, content, tool_plan, tool_calls}, finish_reason, usage}`) as a
 * hub response: thinking content and the tool plan as thinking, text, then the tool calls.
 */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (!isObj(body.message)) {
    if (typeof body.message === 'string')
      throw new RelayError(502, body.message, 'upstream_error', null, null, false);
    throw notAnAnswer();
  }
  const failed = finishError(body.finish_reason, undefined);
  if (failed) throw new RelayError(failed.status, failed.message, 'upstream_error', null, null, false);
  const msg = body.message;
  const parts: HubPart[] = [];
  const content = Array.isArray(msg.content) ? msg.content : [];
  for (const c of content)
    if (isObj(c) && c.type === 'thinking' && typeof c.thinking === 'string' && c.thinking)
      parts.push({ type: 'thinking', text: c.thinking });
  if (typeof msg.tool_plan === 'string' && msg.tool_plan)
    parts.push({ type: 'thinking', text: msg.tool_plan });
  if (typeof msg.content === 'string' && msg.content) parts.push({ type: 'text', text: msg.content });
  for (const c of content)
    if (isObj(c) && c.type === 'text' && typeof c.text === 'string' && c.text)
      parts.push({ type: 'text', text: c.text });
  for (const tc of Array.isArray(msg.tool_calls) ? msg.tool_calls : []) {
    if (!isObj(tc)) continue;
    const fn = isObj(tc.function) ? tc.function : {};
    parts.push({
      type: 'tool_call',
      id: typeof tc.id === 'string' && tc.id ? tc.id : newId('call_'),
      name: typeof fn.name === 'string' ? fn.name : '',
      args:
        typeof fn.arguments === 'string'
          ? fn.arguments
          : isObj(fn.arguments)
            ? JSON.stringify(fn.arguments)
            : '',
    });
  }
  return {
    id: typeof body.id === 'string' && body.id ? body.id : newId('chatcmpl-'),
    model: ctx.model,
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: hubStop(
      body.finish_reason,
      parts.some((p) => p.type === 'tool_call'),
    ),
    usage: decodeUsage(body.usage),
  };
}
