import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj, type Obj } from '../../formats/chat/check.ts';
import { decodeResponse as chatResponse } from '../../formats/chat/response.ts';
import { notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubResponse } from '../../formats/hub.ts';
import { aliError } from './errors.ts';

/**
 * A DashScope message (or stream delta) as OpenAI chat's: the multimodal endpoint's content list
 * (`[{text}]`) becomes its text. reasoning_content and tool_calls already have chat's names and shapes.
 */
export function chatMessage(m: unknown): Obj {
  if (!isObj(m)) return {};
  if (!Array.isArray(m.content)) return m;
  const text = m.content.map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : '')).join('');
  return { ...m, content: text };
}

/** DashScope's finish_reason: the string "null" on every frame but the last. */
export const finishOf = (v: unknown) => (typeof v === 'string' && v && v !== 'null' ? v : null);

/** A DashScope answer (`{output:{choices}, usage, request_id}`) in OpenAI chat's shape, for chat's decoders. */
export function chatShape(body: Obj): Obj {
  const output = isObj(body.output) ? body.output : {};
  const choices = Array.isArray(output.choices) ? output.choices : [];
  return {
    ...(typeof body.request_id === 'string' ? { id: body.request_id } : {}),
    choices: choices.map((c, index) => {
      const o = isObj(c) ? c : {};
      const message = chatMessage(o.message);
      return { index, message, delta: message, finish_reason: finishOf(o.finish_reason) };
    }),
    ...(isObj(body.usage) ? { usage: body.usage } : {}),
  };
}

/** An error in disguise: a body with DashScope's error code and no output. */
export const isAliError = (body: Obj) =>
  typeof body.code === 'string' && body.code !== '' && !isObj(body.output);

export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (isAliError(body)) throw relayErrorOf(aliError(body.code, body.message, 0));
  return chatResponse(chatShape(body), ctx);
}
