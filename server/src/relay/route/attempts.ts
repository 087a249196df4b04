import type { RelayMeter } from '../../infra/metrics/relay-metrics.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { ChannelEntry, Tier } from '../table-cache/channels.ts';
import { autoDisable, autoDisableKey, hasOtherKey, shouldDisable, withKey } from './failover.ts';
import { type Lease, outcomeOf } from './router.ts';

/** Where and how often one request may try its channels. */
export interface AttemptPlan {
  state: RelayState;
  group: string;
  model: string;
  tiers: Tier[];
  /** A channel fixed in advance (an admin's pin, a continued task's channel): one attempt there, nothing routed. */
  fixed: Lease | null;
  /** Attempts after the first. */
  retries: number;
  /** The channel and key that answered this conversation last: the first attempt goes there when it can. */
  remembered?: { channelId: number; keyIndex?: number };
  /** The channels tried, in order; each attempt's is added. */
  chain: number[];
  meter?: RelayMeter;
  /** The upstream's error as this request judges it (a channel's status-code mapping); as it came by default. */
  judge?: (err: RelayError, ch: ChannelEntry) => RelayError;
  /** Whether another channel may try after this failure. */
  mayRetry: (err: RelayError) => boolean;
  /** Told of each failed attempt (tracing, logs). */
  failed?: (err: RelayError, ch: ChannelEntry) => void;
  /** The error when no channel could be tried at all. */
  none: () => Error;
}

/**
 * The attempt loop every channel-calling request shares: lease a channel (the remembered one first), take one
 * of its keys, try, end the lease with the outcome; after an upstream failure disable the key or channel when
 * the error says it is dead (a dead key's request goes to the channel's other keys first), then retry on
 * another channel while the plan allows. Returns the first success and its channel; throws the last failure.
 */
export async function runAttempts<T>(
  plan: AttemptPlan,
  attempt: (ch: ChannelEntry) => Promise<T>,
): Promise<{ result: T; ch: ChannelEntry }> {
  const { state, tiers, remembered } = plan;
  const tried = new Set<number>();
  let lastError: RelayError | null = null;
  let lastFailed: number | undefined;
  for (let n = 0; n <= (plan.fixed ? 0 : plan.retries); n++) {
    const sticky = n === 0 && remembered !== undefined;
    const lease =
      plan.fixed ??
      ((sticky && state.router.pickRemembered(remembered.channelId, tiers, tried)) ||
        state.router.pick(plan.group, plan.model, tiers, tried, lastFailed));
    if (!lease) break;
    const picked = lease.channel;
    tried.add(picked.id);
    const ch = withKey(
      picked,
      sticky && remembered.channelId === picked.id ? remembered.keyIndex : undefined,
    );
    if (!ch) {
      lease.end('ignore');
      continue;
    }
    plan.chain.push(ch.id);
    if (lastFailed !== undefined) plan.meter?.retried(lastFailed, ch.id);
    try {
      const result = await attempt(ch);
      lease.end('ok');
      return { result, ch };
    } catch (err) {
      lease.end(err instanceof RelayError ? outcomeOf(err) : 'ignore');
      if (!(err instanceof RelayError)) throw err;
      const e = plan.judge ? plan.judge(err, ch) : err;
      lastError = e;
      lastFailed = ch.id;
      plan.failed?.(e, ch);
      if (shouldDisable(state.ctx, ch, e)) {
        const reason = `status ${e.status}: ${e.detail ?? e.message}`;
        if (ch.keyIndex === undefined) void autoDisable(state.ctx, state.channels, ch, reason);
        else {
          void autoDisableKey(state.ctx, state.channels, ch, reason);
          if (hasOtherKey(ch)) tried.delete(ch.id);
        }
      }
      if (!plan.mayRetry(e)) throw e;
    }
  }
  throw lastError ?? plan.none();
}
