import { count } from '../common.ts';
import type { HubUsage } from '../hub.ts';
import { isObj } from './check.ts';

/**
 * An Anthropic usage object as hub usage. input_tokens excludes cache reads and writes, so the hub's input
 * adds them. Cache writes split by TTL come from cache_creation.ephemeral_5m / ephemeral_1h; without that
 * breakdown (older API versions, compatible servers) cache_creation_input_tokens counts as 5-minute writes.
 * Thinking tokens come from output_tokens_details.thinking_tokens when the API reports them; web searches
 * from server_tool_use.web_search_requests.
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
  const usage: HubUsage = {
    input: count(o.input_tokens) + write5m + write1h + cacheRead,
    output,
    cacheRead,
    cacheWrite: write5m,
    cacheWrite1h: write1h,
    reasoning: Math.min(count(o.output_tokens_details?.thinking_tokens), output),
  };
  const searches = count(o.server_tool_use?.web_search_requests);
  if (searches > 0) usage.webSearches = searches;
  return usage;
}

/** The input counts of hub usage in Anthropic's split: input_tokens without cache reads and writes. */
function inputCounts(u: HubUsage) {
  return {
    input_tokens: Math.max(0, u.input - u.cacheRead - u.cacheWrite - u.cacheWrite1h),
    cache_creation_input_tokens: u.cacheWrite + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
  };
}

/**
 * The usage of message_start and message_delta events (the input counts and output_tokens) as JSON text: the
 * same bytes as the object stringified, with a count that is not a number written as 0.
 */
export function streamUsageJson(u: HubUsage): string {
  const c = inputCounts(u);
  return `{"input_tokens":${n(c.input_tokens)},"cache_creation_input_tokens":${n(c.cache_creation_input_tokens)},"cache_read_input_tokens":${n(c.cache_read_input_tokens)},"output_tokens":${n(u.output)}}`;
}

const n = (x: number) => (Number.isFinite(x) ? x : 0);

/**
 * Hub usage as a Message's usage object: every count numeric (Claude Code reads them unguarded). Built field
 * by field: object spreads here cost more than the rest of encoding a short answer.
 */
export function encodeUsage(u: HubUsage): Record<string, unknown> {
  const counts = inputCounts(u);
  const usage: Record<string, unknown> = {
    input_tokens: counts.input_tokens,
    cache_creation_input_tokens: counts.cache_creation_input_tokens,
    cache_read_input_tokens: counts.cache_read_input_tokens,
    cache_creation: {
      ephemeral_5m_input_tokens: u.cacheWrite,
      ephemeral_1h_input_tokens: u.cacheWrite1h,
    },
    output_tokens: u.output,
  };
  if (u.reasoning > 0) usage.output_tokens_details = { thinking_tokens: u.reasoning };
  return usage;
}
