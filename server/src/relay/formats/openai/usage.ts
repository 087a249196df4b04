import type { Usage } from '../../billing/quota.ts';

/**
 * Reads an OpenAI-style usage object (reasoning tokens billed as completion even when a provider reports
 * them only in total_tokens): chat/completions (prompt/completion + cached tokens, DeepSeek's
 * prompt_cache_hit_tokens), embeddings and rerank (prompt or total tokens), transcription (input/output tokens).
 * Null when there is none or it counts nothing.
 */
export function readUsage(u: unknown): Usage | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Record<string, any>;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  let prompt = num(o.prompt_tokens) || num(o.input_tokens);
  let completion = num(o.completion_tokens) || num(o.output_tokens);
  const total = num(o.total_tokens);
  if (!prompt && !completion) prompt = total;
  // Some providers (xAI) leave reasoning tokens out of completion_tokens but count them in the total.
  else if (total > prompt + completion) completion = total - prompt;
  if (!prompt && !completion) return null;
  const cached =
    num(o.prompt_tokens_details?.cached_tokens) ||
    num(o.input_tokens_details?.cached_tokens) ||
    num(o.prompt_cache_hit_tokens);
  return { promptTokens: prompt, completionTokens: completion, cachedTokens: Math.min(cached, prompt) };
}
