import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj, type Obj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubPart, HubResponse, HubStop, HubToolCall } from '../../formats/hub.ts';
import { baiduError, errorCodeOf } from './errors.ts';

/** Wenxin's function_call (`{name, arguments, thoughts}`, arguments as JSON text) as a hub tool call. */
export function toolCallOf(fc: unknown): HubToolCall | null {
  if (!isObj(fc) || typeof fc.name !== 'string' || !fc.name) return null;
  const args =
    typeof fc.arguments === 'string' ? fc.arguments : isObj(fc.arguments) ? JSON.stringify(fc.arguments) : '';
  return { type: 'tool_call', id: newId('call_'), name: fc.name, args };
}

/**
 * Why Wenxin stopped: a function call, a cut answer (`length` or is_truncated), or a filtered one
 * (`content_filter`, or need_clear_history: the prompt was judged unsafe and the answer is a canned one).
 */
export function stopOf(o: Obj, hasCall: boolean): HubStop {
  if (hasCall || o.finish_reason === 'function_call') return 'tool_calls';
  if (o.need_clear_history === true || o.finish_reason === 'content_filter') return 'content_filter';
  if (o.finish_reason === 'length' || o.is_truncated === true) return 'max_tokens';
  return 'end';
}

/** A Wenxin chat answer as a hub response; an answer carrying error_code is thrown as a RelayError. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  const code = errorCodeOf(body);
  if (code !== null) throw relayErrorOf(baiduError(code, body.error_msg, 0));
  const parts: HubPart[] = [];
  if (typeof body.result === 'string' && body.result) parts.push({ type: 'text', text: body.result });
  const call = toolCallOf(body.function_call);
  if (call) parts.push(call);
  return {
    id: typeof body.id === 'string' && body.id ? body.id : newId('as-'),
    model: ctx.model,
    created:
      typeof body.created === 'number' && body.created > 0 ? body.created : Math.floor(Date.now() / 1000),
    parts,
    stop: stopOf(body, call !== null),
    usage: decodeUsage(body.usage),
  };
}
