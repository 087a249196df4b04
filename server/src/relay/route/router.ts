import { DEFAULT_ROUTING_MODE, isRoutingMode, type RoutingMode } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { RelayError } from '../relay-error.ts';
import type { ChannelEntry, Tier } from '../table-cache/channels.ts';
import type { PriceCache } from '../table-cache/prices.ts';
import type { ChannelBreakers, Outcome } from './breaker/index.ts';
import { channelCost } from './cheapest-cost.ts';
import { type PickPolicy, pickChannel } from './failover.ts';
import { chooseBy } from './routing-modes.ts';

/** One attempt's hold on a channel: counted in flight until `end`, whose outcome feeds the breaker. */
export interface Lease {
  channel: ChannelEntry;
  /** Ends the attempt; only the first call counts. */
  end(outcome: Outcome): void;
}

/** A channel named by the caller (an admin's pinned channel): not routed, so not counted either. */
export const pinnedLease = (channel: ChannelEntry): Lease => ({ channel, end: () => {} });

/** What an attempt's error says about the upstream: 5xx, timeouts and broken connections are its faults. */
export function outcomeOf(err: RelayError): Outcome {
  return !err.local && err.status >= 500 ? 'fail' : 'ignore';
}

/**
 * Chooses the channel of each attempt by the group's routing mode (option GroupRoutingMode), skipping channels
 * whose circuit breaker is open. Everything it reads is in memory: in-flight counts and round-robin turns are
 * this instance's own, breaker states are shared across instances by the breakers.
 */
export class Router {
  private readonly inFlight = new Map<number, number>();
  private readonly turns = new Map<string, number>();

  constructor(
    private readonly ctx: AppContext,
    readonly breakers: ChannelBreakers,
    private readonly prices: PriceCache,
  ) {}

  modeOf(group: string): RoutingMode {
    const map = this.ctx.options.json<unknown>('GroupRoutingMode');
    const mode =
      map && typeof map === 'object' && Object.hasOwn(map, group)
        ? (map as Record<string, unknown>)[group]
        : undefined;
    return isRoutingMode(mode) ? mode : DEFAULT_ROUTING_MODE;
  }

  inFlightOn(id: number): number {
    return this.inFlight.get(id) ?? 0;
  }

  /**
   * The next attempt's channel (see route/failover.ts pickChannel for tiers and retries), or null when none is left.
   * Throws a 503 when the request has channels but every one of them is out of rotation behind its breaker.
   */
  pick(
    group: string,
    model: string,
    tiers: Tier[],
    tried: ReadonlySet<number>,
    lastFailed?: number,
  ): Lease | null {
    const mode = this.modeOf(group);
    const policy: PickPolicy = {
      usable: (c) => this.breakers.usable(c.id),
      choose: (candidates, tier) => {
        const turnKey = `${group}\n${model}\n${tier.priority}`;
        const ch = chooseBy(mode, candidates, {
          inFlight: (id) => this.inFlightOn(id),
          cost: (c) => channelCost(this.prices, c, model, this.ctx.options.float('QuotaPerUnit')),
          lastTurn: this.turns.get(turnKey) ?? 0,
        });
        if (mode === 'round_robin') this.turns.set(turnKey, ch.id);
        return ch;
      },
    };
    const ch = pickChannel(tiers, tried, lastFailed, policy);
    if (ch) return this.lease(ch);
    if (tried.size === 0 && tiers.length) throw this.allOpen(group, model, tiers);
    return null;
  }

  /**
   * The channel a conversation went to last, when this request may still use it: among its channels, not
   * tried yet, its breaker closed. Null otherwise (the routing mode chooses then).
   */
  pickRemembered(channelId: number, tiers: Tier[], tried: ReadonlySet<number>): Lease | null {
    if (tried.has(channelId) || !this.breakers.usable(channelId)) return null;
    for (const tier of tiers) for (const ch of tier.channels) if (ch.id === channelId) return this.lease(ch);
    return null;
  }

  private lease(ch: ChannelEntry): Lease {
    const probe = this.breakers.admit(ch.id);
    this.inFlight.set(ch.id, this.inFlightOn(ch.id) + 1);
    let open = true;
    return {
      channel: ch,
      end: (outcome) => {
        if (!open) return;
        open = false;
        // Kept at 0 rather than deleted: a map that shrinks and grows with every request reallocates its table,
        // which, held by the router, outlives the young generation (one entry per channel is all it keeps).
        this.inFlight.set(ch.id, this.inFlightOn(ch.id) - 1);
        this.breakers.record(ch.id, outcome, probe);
      },
    };
  }

  private allOpen(group: string, model: string, tiers: Tier[]): RelayError {
    let until = Number.POSITIVE_INFINITY;
    for (const t of tiers)
      for (const c of t.channels) until = Math.min(until, this.breakers.circuit(c.id)?.until ?? until);
    const wait = Number.isFinite(until) ? Math.max(1, Math.ceil(until - this.breakers.now() / 1000)) : 1;
    return new RelayError(
      503,
      `every channel for model ${model} in group ${group} is paused after upstream errors (circuit breaker open); try again in ${wait} s`,
      'new_api_error',
      'channel_circuit_open',
      'model',
    );
  }
}
