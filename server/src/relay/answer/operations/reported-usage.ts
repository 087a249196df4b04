import type { Usage } from '../../billing/quota.ts';
import { countText } from '../../billing/tokenizer.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import { usageFromHub } from '../../formats/hub-count.ts';
import type { FormatExchange } from '../format-answer.ts';

/**
 * An OpenAI-style usage object (chat, completions, embeddings, rerank, transcriptions) as the billing's usage,
 * read by the chat codec's one reader so that every operation bills the upstream's usage the same way (cache
 * writes and reasoning tokens included). Null when there is none or it counts nothing.
 */
export function readUsage(u: unknown): Usage | null {
  const hub = decodeUsage(u);
  return hub.input + hub.output > 0 ? usageFromHub(hub) : null;
}

export const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });

/** The upstream's usage, else the request's input text counted here as the prompt. */
export async function reportedOrInput(x: FormatExchange, json: any): Promise<Usage> {
  return (
    readUsage(json?.usage) ?? {
      promptTokens: await countText(x.call.model, x.input.info.inputText),
      completionTokens: 0,
      cachedTokens: 0,
    }
  );
}
