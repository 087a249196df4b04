import type { AnswerGuard } from '../../guardrails/answer.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { forceFormat } from './force-format.ts';
import { thinkingToContent } from './thinking-to-content.ts';

/** Rewrites one parsed chat.completion.chunk into the chunks to send. */
export type ChunkRewrite = (chunk: any) => any[];

/**
 * The chunk rewriting a channel's settings ask for (thinking_to_content, then force_format), then the
 * guardrails' answer check when given one (a relayed stream's; a converted one is checked on its hub events);
 * none by default. Applied to the chat.completion.chunk frames a client receives, whether relayed or converted
 * (answer/stream/chat-relay.ts), so it holds for every channel format that answers an OpenAI client.
 */
export function chunkRewrite(ch: ChannelEntry, guard?: AnswerGuard): ChunkRewrite | undefined {
  const steps: ChunkRewrite[] = [];
  if (ch.setting.thinking_to_content === true) steps.push(thinkingToContent());
  if (ch.setting.force_format === true) steps.push(forceFormat);
  if (guard) steps.push((chunk) => guard.chatChunk(chunk));
  if (steps.length === 0) return undefined;
  return (chunk) => steps.reduce<any[]>((chunks, step) => chunks.flatMap(step), [chunk]);
}
