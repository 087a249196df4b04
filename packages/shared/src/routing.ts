/**
 * How the relay spreads requests over the channels of one priority tier, chosen per group by the option
 * GroupRoutingMode ({"group": "round_robin"}); groups not named there use weighted random.
 */
export const ROUTING_MODES = ['weighted', 'round_robin', 'least_requests', 'cheapest'] as const;
export type RoutingMode = (typeof ROUTING_MODES)[number];
export const DEFAULT_ROUTING_MODE: RoutingMode = 'weighted';

export const isRoutingMode = (v: unknown): v is RoutingMode =>
  typeof v === 'string' && (ROUTING_MODES as readonly string[]).includes(v);

/** Why a parsed GroupRoutingMode value is refused, or undefined when it is fine. */
export function groupRoutingModeProblem(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return 'expected a JSON object of group to routing mode';
  for (const [group, mode] of Object.entries(value)) {
    if (!group.trim()) return 'a group name must not be empty';
    if (!isRoutingMode(mode))
      return `group ${group}: unknown routing mode ${JSON.stringify(mode)} (use one of ${ROUTING_MODES.join(', ')})`;
  }
  return undefined;
}

/**
 * The circuit breaker's options with their ranges. A channel leaves rotation when, over the last
 * WindowSeconds, it had at least MinRequests attempts and their share of failures reached ErrorRate; it stays
 * out for CooldownSeconds, then takes up to ProbeRequests trial requests and is back when they all succeed.
 * A window, a minimum or an error rate of 0 turns the breaker off.
 */
export const BREAKER_OPTIONS = {
  CircuitBreakerWindowSeconds: { default: 60, min: 0, max: 86_400, integer: true },
  CircuitBreakerMinRequests: { default: 20, min: 0, max: 1_000_000, integer: true },
  CircuitBreakerErrorRate: { default: 0.5, min: 0, max: 1, integer: false },
  CircuitBreakerCooldownSeconds: { default: 30, min: 1, max: 86_400, integer: true },
  CircuitBreakerProbeRequests: { default: 3, min: 1, max: 1000, integer: true },
} as const;
export type BreakerOptionKey = keyof typeof BREAKER_OPTIONS;

/** Why a breaker option value is refused, or undefined when it is fine. */
export function breakerOptionProblem(key: BreakerOptionKey, value: number): string | undefined {
  const r = BREAKER_OPTIONS[key];
  if (!Number.isFinite(value)) return 'expected a number';
  if (r.integer && !Number.isInteger(value)) return 'expected a whole number';
  if (value < r.min || value > r.max) return `must be between ${r.min} and ${r.max}`;
  return undefined;
}

/** A channel's breaker as the console shows it; absent when the breaker is closed. */
export interface ChannelCircuit {
  state: 'open' | 'half_open';
  /** Unix seconds when an open breaker lets its first probe through. */
  until: number;
}
