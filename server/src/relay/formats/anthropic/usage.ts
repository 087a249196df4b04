import { count } from '../common.ts';
import type { HubUsage } from '../hub.ts';
import { isObj } from './check.ts';

/**
 * An Anthropic usage object as hub usage. input_tokens excludes cache reads and writes, so the hub's input
 * adds them. Cache writes split by TTL come from cache_creation.ephemeral_5m / ephemeral_1h; without that
 * breakdown (older API versions, compatible servers) cache_creation_input_tokens counts as 5-minute writes.
 * Thinking tokens come from output_tokens_details.thinking_tokens when the API reports them.
 */
export function decodeUsage(u: unknown): HubUsage {
  const o = isObj(u) ? (u as Record<string, any>) : {};
  const cc = isObj(o.cache_creation) ? (o.cache_creation as Record<string, unknown>) : {};
  const write1h = count(cc.ephemeral_1h_input_tokens);
  const write5m = Math.max(
    count(cc.ephemeral_5m_input_tokens),
    count(o.cache_creation_input_tokens) - write1h,
  );
  const cacheRead = count(o.cache_read_input_tokens);
  const output = count(o.output_tokens);
  return {
    input: count(o.input_tokens) + write5m + write1h + cacheRead,
    output,
    cacheRead,
    cacheWrite: write5m,
    cacheWrite1h: write1h,
    reasoning: Math.min(count(o.output_tokens_details?.thinking_tokens), output),
  };
}

/** The input counts of hub usage in Anthropic's split: input_tokens without cache reads and writes. */
export function inputCounts(u: HubUsage) {
  return {
    input_tokens: Math.max(0, u.input - u.cacheRead - u.cacheWrite - u.cacheWrite1h),
    cache_creation_input_tokens: u.cacheWrite + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
  };
}

/** Hub usage as a Message's usage object: every count numeric (Claude Code reads them unguarded). */
export function encodeUsage(u: HubUsage): Record<string, unknown> {
  return {
    ...inputCounts(u),
    cache_creation: {
      ephemeral_5m_input_tokens: u.cacheWrite,
      ephemeral_1h_input_tokens: u.cacheWrite1h,
    },
    output_tokens: u.output,
    ...(u.reasoning > 0 ? { output_tokens_details: { thinking_tokens: u.reasoning } } : {}),
  };
}
