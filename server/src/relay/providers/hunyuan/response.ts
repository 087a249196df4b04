import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj, type Obj } from '../../formats/chat/check.ts';
import { decodeResponse as chatResponse } from '../../formats/chat/response.ts';
import { notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubResponse } from '../../formats/hub.ts';
import { hunyuanError } from './errors.ts';

/** A Hunyuan Message or Delta as OpenAI chat's. */
function chatMessage(m: unknown): Obj {
  if (!isObj(m)) return {};
  const out: Obj = {};
  if (typeof m.Role === 'string') out.role = m.Role;
  if (typeof m.Content === 'string') out.content = m.Content;
  if (typeof m.ReasoningContent === 'string') out.reasoning_content = m.ReasoningContent;
  if (Array.isArray(m.ToolCalls))
    out.tool_calls = m.ToolCalls.map((tc) => {
      const t = isObj(tc) ? tc : {};
      const fn = isObj(t.Function) ? t.Function : {};
      return {
        ...(typeof t.Index === 'number' ? { index: t.Index } : {}),
        id: t.Id,
        type: 'function',
        function: { name: fn.Name, arguments: fn.Arguments },
      };
    });
  return out;
}

/** Hunyuan's FinishReason: empty until the end; `sensitive` when moderation stopped the answer. */
const finishOf = (v: unknown) =>
  v === 'sensitive' ? 'content_filter' : typeof v === 'string' && v ? v : null;

/** A Hunyuan answer or stream chunk (`{Id, Choices, Usage}`) in OpenAI chat's shape, for chat's decoders. */
export function chatShape(r: Obj): Obj {
  const choices = Array.isArray(r.Choices) ? r.Choices : [];
  const u = isObj(r.Usage) ? r.Usage : undefined;
  return {
    ...(typeof r.Id === 'string' ? { id: r.Id } : {}),
    ...(typeof r.Created === 'number' ? { created: r.Created } : {}),
    choices: choices.map((c, index) => {
      const o = isObj(c) ? c : {};
      return {
        index,
        message: chatMessage(o.Message),
        delta: chatMessage(o.Delta),
        finish_reason: finishOf(o.FinishReason),
      };
    }),
    ...(u
      ? {
          usage: {
            prompt_tokens: u.PromptTokens,
            completion_tokens: u.CompletionTokens,
            total_tokens: u.TotalTokens,
          },
        }
      : {}),
  };
}

/** Tencent Cloud answers 200 to every request; an error is `Response.Error`. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  const r = isObj(body) && isObj(body.Response) ? body.Response : null;
  if (!r) throw notAnAnswer();
  if (isObj(r.Error)) throw relayErrorOf(hunyuanError(r.Error.Code, r.Error.Message));
  return chatResponse(chatShape(r), ctx);
}
