import type { Usage } from '../../billing/quota.ts';
import { decodeUsage } from '../chat/usage.ts';
import { usageFromHub } from '../hub-count.ts';

/**
 * An OpenAI-style usage object (chat, completions, embeddings, rerank, transcriptions) as the billing's usage,
 * read by the chat codec's one reader so that every path bills the same upstream usage the same way (cache
 * writes and reasoning tokens included). Null when there is none or it counts nothing.
 */
export function readUsage(u: unknown): Usage | null {
  const hub = decodeUsage(u);
  return hub.input + hub.output > 0 ? usageFromHub(hub) : null;
}
