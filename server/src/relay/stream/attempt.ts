import { countChatPrompt, countText } from '../billing/tokenizer.ts';
import type { ChannelEntry } from '../cache/channels.ts';
import type { CallAbort } from '../call-abort.ts';
import type { RelayReply, RelayRequest } from '../exchange.ts';
import { answerBlocked } from '../guardrails/whole-answer.ts';
import type { Produced, RelayInput } from '../input.ts';
import type { UpstreamCall, UpstreamResponse } from '../providers/types.ts';
import type { RelayState } from '../state.ts';
import { chunkRewrite } from './chunk-rewrite.ts';
import { finishStream, readHeld, relayStream } from './relay-stream.ts';

/** A streamed answer: forwarded as it arrives, then its usage (the upstream's, else counted here). */
export async function streamAttempt(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  input: RelayInput,
  outgoing: Record<string, unknown> | undefined,
  call: UpstreamCall,
  res: UpstreamResponse,
  controller: CallAbort,
  startedAt: number,
  ch: ChannelEntry,
): Promise<Produced> {
  const { ctx } = state;
  const pingOn = ctx.options.bool('general_setting.ping_interval_enabled');
  const guard = input.answerGuard?.(); // guardrails: answer side
  const out = await relayStream(
    {
      res,
      raw: reply.raw,
      headers: reply.getHeaders(),
      wantsUsage: input.info.wantsUsage,
      pingSeconds: pingOn ? Math.max(1, ctx.options.int('general_setting.ping_interval_seconds')) : 0,
      abort: () => controller.abort(),
      onStart: () => reply.hijack(),
      rewrite: chunkRewrite(ch, guard),
      guard,
    },
    startedAt,
  );
  // A client that left before the first byte: let the framework drop the reply; billing still follows.
  if (out.clientGone && !reply.raw.headersSent) reply.hijack();
  let usage = out.usage;
  const counted = !usage;
  if (!usage) {
    readHeld(out);
    const prompt =
      input.mode === 'chat'
        ? await countChatPrompt(call.model, outgoing ?? {})
        : await countText(call.model, input.info.inputText);
    const completion = (await countText(call.model, out.text)) + 7 * out.toolCalls;
    usage = { promptTokens: prompt, completionTokens: completion, cachedTokens: 0 };
  }
  const usageChunk =
    counted && input.info.wantsUsage
      ? {
          id: out.meta.id ?? `chatcmpl-${req.id}`,
          object: 'chat.completion.chunk',
          created: out.meta.created ?? Math.floor(Date.now() / 1000),
          model: out.meta.model ?? call.model,
          choices: [],
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.promptTokens + usage.completionTokens,
          },
        }
      : null;
  finishStream(reply.raw, out, usageChunk);
  if (guard?.blocked) return { usage, firstAt: out.firstAt, ...answerBlocked(guard) };
  const note = out.clientGone
    ? 'client disconnected mid-stream'
    : out.error
      ? `upstream failed mid-stream: ${out.error.message}`
      : undefined;
  return { usage, firstAt: out.firstAt, note };
}
