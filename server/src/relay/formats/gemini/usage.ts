import { count } from '../common.ts';
import type { HubUsage } from '../hub.ts';
import { isObj } from './check.ts';

/**
 * usageMetadata as hub usage. promptTokenCount already counts cached content (the hub's input meaning);
 * toolUsePromptTokenCount (results of Google-run tools) is prompt too and billed as such; output is
 * candidates plus thoughts (Gemini leaves thoughts out of candidatesTokenCount). Gemini reports no cache
 * writes. In a stream every chunk carries the totals so far.
 */
export function decodeUsage(u: unknown): HubUsage {
  const o = isObj(u) ? (u as Record<string, unknown>) : {};
  const cacheRead = count(o.cachedContentTokenCount);
  const reasoning = count(o.thoughtsTokenCount);
  return {
    input: Math.max(count(o.promptTokenCount) + count(o.toolUsePromptTokenCount), cacheRead),
    output: count(o.candidatesTokenCount) + reasoning,
    cacheRead,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning,
  };
}

/** Whether a usageMetadata has counts (Vertex's intermediate chunks hold only trafficType). */
export const hasCounts = (u: unknown): boolean =>
  isObj(u) && (u.promptTokenCount !== undefined || u.totalTokenCount !== undefined);

/** Hub usage as usageMetadata; cache writes (no Gemini field) stay inside promptTokenCount. */
export function encodeUsage(u: HubUsage): Record<string, unknown> {
  const reasoning = Math.min(u.reasoning, u.output);
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: u.output - reasoning,
    totalTokenCount: u.input + u.output,
    ...(reasoning > 0 ? { thoughtsTokenCount: reasoning } : {}),
    ...(u.cacheRead > 0 ? { cachedContentTokenCount: u.cacheRead } : {}),
  };
}
