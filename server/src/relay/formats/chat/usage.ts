import { count } from '../common.ts';
import type { HubUsage } from '../hub.ts';
import { isObj } from './check.ts';

/**
 * An OpenAI-style usage object as hub usage. prompt_tokens already counts cached tokens and
 * completion_tokens reasoning ones (OpenAI's meaning, the hub's too), with these dialects:
 * - xAI leaves reasoning tokens out of completion_tokens but counts them in total_tokens, so a total above
 *   prompt + completion makes output the difference (as the passthrough relay bills it);
 * - DeepSeek reports cache hits as prompt_cache_hit_tokens;
 * - gateways that serve Claude behind an OpenAI-compatible API add cache_creation_input_tokens;
 * - a few servers use the Responses names input_tokens / output_tokens;
 * - embeddings and rerank answers of some providers report only total_tokens: the prompt.
 */
export function decodeUsage(u: unknown): HubUsage {
  const o = isObj(u) ? (u as Record<string, any>) : {};
  let prompt = count(o.prompt_tokens) || count(o.input_tokens);
  let output = count(o.completion_tokens) || count(o.output_tokens);
  const total = count(o.total_tokens);
  if (prompt + output === 0) prompt = total;
  else if (total > prompt + output) output = total - prompt;
  const cacheRead =
    count(o.prompt_tokens_details?.cached_tokens) ||
    count(o.prompt_cache_hit_tokens) ||
    count(o.input_tokens_details?.cached_tokens);
  const cacheWrite = count(o.cache_creation_input_tokens);
  const reasoning =
    count(o.completion_tokens_details?.reasoning_tokens) || count(o.output_tokens_details?.reasoning_tokens);
  return {
    // prompt_tokens counts cache reads and writes; a gateway that left them out must not bill less than them.
    input: Math.max(prompt, cacheRead + cacheWrite),
    output: Math.max(output, reasoning),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    reasoning,
  };
}

/** Hub usage as OpenAI's chat usage object; cache writes (no OpenAI field) as cache_creation_input_tokens. */
export function encodeUsage(u: HubUsage): Record<string, unknown> {
  const cacheWrite = u.cacheWrite + u.cacheWrite1h;
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
    ...(cacheWrite > 0 ? { cache_creation_input_tokens: cacheWrite } : {}),
  };
}
