import { isObj } from '../../formats/chat/check.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubPart, HubResponse } from '../../formats/hub.ts';
import { RelayError } from '../../relay-error.ts';
import { cozeError } from './errors.ts';
import { decodeUsage } from './usage.ts';

const fail = (e: Record<string, unknown>) => {
  const h = cozeError(e, 0);
  return new RelayError(h.status, h.message, 'upstream_error', h.code ?? null, null, false);
};

/**
 * A finished Coze chat as a hub response, in the shape coze-js's createAndPoll gives it (`{chat, messages}`:
 * the chat with its status and usage, and its messages, of which the assistant's answers make the text).
 * The adapter collects a stream into it. A body with a non-zero code is Coze's error.
 */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (typeof body.code === 'number' && body.code !== 0) throw fail(body);
  if (!isObj(body.chat)) throw notAnAnswer();
  const chat = body.chat;
  if (chat.status === 'failed') throw fail(isObj(chat.last_error) ? chat.last_error : {});
  const parts: HubPart[] = [];
  const answers = (Array.isArray(body.messages) ? body.messages : []).filter(
    (m): m is Record<string, unknown> => isObj(m) && m.role === 'assistant' && m.type === 'answer',
  );
  const thinking = answers
    .map((m) => (typeof m.reasoning_content === 'string' ? m.reasoning_content : ''))
    .join('');
  const text = answers.map((m) => (typeof m.content === 'string' ? m.content : '')).join('');
  if (thinking) parts.push({ type: 'thinking', text: thinking });
  if (text) parts.push({ type: 'text', text });
  return {
    id: typeof chat.id === 'string' && chat.id ? chat.id : newId('chatcmpl-'),
    model: ctx.model,
    created:
      typeof chat.created_at === 'number' && chat.created_at > 0
        ? chat.created_at
        : Math.floor(Date.now() / 1000),
    parts,
    stop: 'end',
    usage: decodeUsage(chat.usage),
  };
}
