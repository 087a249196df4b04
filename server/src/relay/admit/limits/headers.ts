import type { LimitKind, WindowCount, WindowLimit } from './windows.ts';

/** A wait as OpenAI writes its reset headers (Go's duration text, to the millisecond): 120ms, 1s, 8.64s, 6m0s. */
export function durationText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = `${(total % 60_000) / 1000}s`;
  if (h) return `${h}h${m}m${s}`;
  if (m) return `${m}m${s}`;
  return s;
}

/** What the 429 says about the window that refused. */
export interface Refusal {
  index: number;
  kind: LimitKind;
  retryMs: number;
}

const CAP: Record<LimitKind, 'rpm' | 'tpm'> = { requests: 'rpm', tokens: 'tpm' };

/**
 * OpenAI's x-ratelimit-* headers for the requests and the tokens: of the window that refused, else of the
 * window with the least room left among those with a cap. `reset` is the wait until the refused request fits,
 * else until the window's oldest request leaves it (when its remaining count grows again).
 */
export function limitHeaders(
  limits: WindowLimit[],
  counts: WindowCount[],
  refusal?: Refusal,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of ['requests', 'tokens'] as const) {
    const capOf = (i: number) => limits[i][CAP[kind]];
    let pick = -1;
    if (refusal?.kind === kind) pick = refusal.index;
    else
      for (let i = 0; i < limits.length; i++) {
        if (capOf(i) <= 0) continue;
        if (pick < 0 || capOf(i) - counts[i][kind] < capOf(pick) - counts[pick][kind]) pick = i;
      }
    if (pick < 0) continue;
    const reset = refusal?.kind === kind ? refusal.retryMs : counts[pick].resetMs;
    out[`x-ratelimit-limit-${kind}`] = String(capOf(pick));
    out[`x-ratelimit-remaining-${kind}`] = String(Math.max(0, capOf(pick) - counts[pick][kind]));
    out[`x-ratelimit-reset-${kind}`] = durationText(reset);
  }
  return out;
}
