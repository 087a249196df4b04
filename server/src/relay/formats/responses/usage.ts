import { isObj } from '../chat/check.ts';
import { count } from '../common.ts';
import type { HubUsage } from '../hub.ts';

/**
 * A Responses usage object as hub usage: input_tokens already counts cached tokens and output_tokens the
 * reasoning ones (the hub's meaning too). Responses has no cache-write count.
 */
export function decodeUsage(u: unknown): HubUsage {
  const o = isObj(u) ? (u as Record<string, any>) : {};
  const cacheRead = count(o.input_tokens_details?.cached_tokens);
  const reasoning = count(o.output_tokens_details?.reasoning_tokens);
  return {
    input: Math.max(count(o.input_tokens), cacheRead),
    output: Math.max(count(o.output_tokens), reasoning),
    cacheRead,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning,
  };
}

/** A Response's usage with the web searches it ran: its `web_search_call` output items (each one billed). */
export function usageWithSearches(u: unknown, output: unknown): HubUsage {
  const usage = decodeUsage(u);
  const searches = Array.isArray(output)
    ? output.filter((item) => isObj(item) && (item as { type?: unknown }).type === 'web_search_call').length
    : 0;
  if (searches > 0) usage.webSearches = searches;
  return usage;
}

/** Hub usage as the Responses usage object (cache writes are part of input_tokens; there is no field of their own). */
export function encodeUsage(u: HubUsage): Record<string, unknown> {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}
