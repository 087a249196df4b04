import { BREAKER_OPTIONS, type BreakerOptionKey } from '@modelgate/shared';
import type { OptionStore } from '../../../modules/options/store.ts';

export interface BreakerSettings {
  /** False when the window, the minimum or the error rate is 0. */
  on: boolean;
  windowMs: number;
  minRequests: number;
  errorRate: number;
  cooldownMs: number;
  probes: number;
}

export const isBreakerOption = (key: string): key is BreakerOptionKey => Object.hasOwn(BREAKER_OPTIONS, key);

/** The CircuitBreaker* options as numbers, each clamped to its range (a stored value is checked on save). */
export function breakerSettings(options: OptionStore): BreakerSettings {
  const read = (key: BreakerOptionKey) => {
    const r = BREAKER_OPTIONS[key];
    const v = options.float(key);
    return Math.min(r.max, Math.max(r.min, Number.isFinite(v) ? v : r.default));
  };
  const windowSec = read('CircuitBreakerWindowSeconds');
  const minRequests = Math.floor(read('CircuitBreakerMinRequests'));
  const errorRate = read('CircuitBreakerErrorRate');
  return {
    on: windowSec > 0 && minRequests > 0 && errorRate > 0,
    windowMs: windowSec * 1000,
    minRequests,
    errorRate,
    cooldownMs: read('CircuitBreakerCooldownSeconds') * 1000,
    probes: Math.max(1, Math.floor(read('CircuitBreakerProbeRequests'))),
  };
}
