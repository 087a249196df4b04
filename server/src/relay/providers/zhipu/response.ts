import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubResponse } from '../../formats/hub.ts';
import { isErrorAnswer, zhipuError } from './errors.ts';

/**
 * The v3 invoke answer's content is a JSON string literal (`"\"Hello\\nworld\""`): read as such when it is
 * one, else taken as it is.
 */
export function unquote(content: unknown): string {
  if (typeof content !== 'string') return '';
  const t = content.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const v = JSON.parse(t);
      if (typeof v === 'string') return v;
    } catch {
      return t.slice(1, -1);
    }
  }
  return content;
}

/** A v3 invoke answer (`{code, msg, success, data:{task_id, choices, usage}}`) as a hub response. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (isErrorAnswer(body)) throw relayErrorOf(zhipuError(body.code, body.msg, 0));
  const data = isObj(body.data) ? body.data : {};
  if (data.task_status === 'FAIL')
    throw relayErrorOf({ status: 500, kind: 'server', message: 'the Zhipu task failed', code: null });
  const choices = Array.isArray(data.choices) ? data.choices.filter(isObj) : [];
  const text = choices.map((c) => unquote(c.content)).join('');
  const id = [data.task_id, data.request_id].find((v) => typeof v === 'string' && v);
  return {
    id: typeof id === 'string' ? id : newId('chatglm-'),
    model: ctx.model,
    created: Math.floor(Date.now() / 1000),
    parts: text ? [{ type: 'text', text }] : [],
    stop: 'end',
    usage: decodeUsage(data.usage),
  };
}
