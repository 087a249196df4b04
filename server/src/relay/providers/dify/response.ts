import { isObj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubResponse } from '../../formats/hub.ts';
import { RelayError } from '../../relay-error.ts';
import { difyError } from './errors.ts';

/** Dify's blocking answer (`{event:'message', message_id, answer, metadata:{usage}}`) as a hub response. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (typeof body.answer !== 'string') {
    if (typeof body.code !== 'string') throw notAnAnswer();
    const e = difyError(body, 0);
    throw new RelayError(e.status, e.message, 'upstream_error', e.code ?? null, null, false);
  }
  const meta = isObj(body.metadata) ? body.metadata : {};
  const id = [body.message_id, body.id].find((v) => typeof v === 'string' && v);
  return {
    id: typeof id === 'string' ? id : newId('chatcmpl-'),
    model: ctx.model,
    created:
      typeof body.created_at === 'number' && body.created_at > 0
        ? body.created_at
        : Math.floor(Date.now() / 1000),
    parts: body.answer ? [{ type: 'text', text: body.answer }] : [],
    stop: 'end',
    usage: decodeUsage(meta.usage),
  };
}
