import type { ChannelEntry } from '../cache/channels.ts';
import type { AnswerGuard } from '../guardrails/answer.ts';
import { forceFormat } from './force-format.ts';
import { thinkingToContent } from './thinking-to-content.ts';

/**
 * The chunk rewriting a channel's settings ask for (thinking_to_content, then force_format), then the
 * guardrails' answer check when the caller's policy has one; none by default.
 */
export function chunkRewrite(ch: ChannelEntry, guard?: AnswerGuard): ((chunk: any) => any[]) | undefined {
  const steps: Array<(chunk: any) => any[]> = [];
  if (ch.setting.thinking_to_content === true) steps.push(thinkingToContent());
  if (ch.setting.force_format === true) steps.push(forceFormat);
  if (guard) steps.push((chunk) => guard.chatChunk(chunk));
  if (steps.length === 0) return undefined;
  return (chunk) => steps.reduce<any[]>((chunks, step) => chunks.flatMap(step), [chunk]);
}
