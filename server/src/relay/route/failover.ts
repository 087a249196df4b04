import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { disableChannel, keyRefused, shouldDisableChannel } from '../../modules/channels/health.ts';
import { disableKey } from '../../modules/channels/key-status.ts';
import { RelayError } from '../relay-error.ts';
import { chooseKey } from '../table-cache/channel-keys.ts';
import type { ChannelCache, ChannelEntry, Tier } from '../table-cache/channels.ts';

/** Weighted random inside one tier: each channel weighs `weight + 10` so weight 0 still gets traffic. */
export function draw(channels: ChannelEntry[]): ChannelEntry {
  if (channels.length === 1) return channels[0];
  let total = 0;
  for (const c of channels) total += Math.max(0, c.weight) + 10;
  let r = Math.random() * total;
  for (const c of channels) {
    r -= Math.max(0, c.weight) + 10;
    if (r < 0) return c;
  }
  return channels[channels.length - 1];
}

/** How one attempt chooses inside a tier (relay/route: the group's routing mode and the breakers). */
export interface PickPolicy {
  /** Whether the channel may take a request now (false while its circuit breaker is open). */
  usable(ch: ChannelEntry): boolean;
  /** One of a tier's candidates (never empty). */
  choose(candidates: ChannelEntry[], tier: Tier): ChannelEntry;
}

const WEIGHTED: PickPolicy = { usable: () => true, choose: (c) => draw(c) };

/**
 * Picks the channel for one attempt: the highest tier that still has a usable channel not tried in this
 * request; when every channel has been tried, any usable one but the one that failed last (a retry never
 * repeats the channel that just failed while another exists). Null when nothing is left.
 */
export function pickChannel(
  tiers: Tier[],
  tried: ReadonlySet<number>,
  lastFailed?: number,
  policy: PickPolicy = WEIGHTED,
): ChannelEntry | null {
  for (const tier of tiers) {
    const fresh = tier.channels.filter((c) => !tried.has(c.id) && policy.usable(c));
    if (fresh.length) return policy.choose(fresh, tier);
  }
  if (tried.size === 0) return null;
  for (const tier of tiers) {
    const others = tier.channels.filter((c) => c.id !== lastFailed && policy.usable(c));
    if (others.length) return policy.choose(others, tier);
  }
  return null;
}

/** Applies the channel's status-code mapping ({"500":"503"}) to an upstream error. */
export function mapStatus(err: RelayError, ch: ChannelEntry): RelayError {
  if (err.local) return err;
  const to = Number(ch.statusCodeMapping[String(err.status)]);
  if (!Number.isInteger(to) || to < 100 || to > 599 || to === err.status) return err;
  const mapped = new RelayError(to, err.message, err.type, err.code, err.param, false);
  mapped.detail = err.detail;
  return mapped;
}

/** Another channel may succeed where this one failed: rate limits, server errors, timeouts, key problems. */
export function shouldRetry(err: RelayError): boolean {
  if (err.local) return false;
  const s = err.status;
  return s === 429 || s === 307 || s >= 500 || s === 401 || s === 403 || s === 404;
}

/**
 * Whether an upstream error says the channel's key or account is dead (option, auto_ban, and the health rules).
 * A key the upstream refuses leaves a multi-key channel's rotation by itself even with automatic disabling off:
 * the channel's other keys keep serving, and nothing but that key stops.
 */
export function shouldDisable(ctx: AppContext, ch: ChannelEntry, err: RelayError): boolean {
  if (err.local || !ch.autoBan) return false;
  if (hasOtherKey(ch) && keyRefused(err)) return true;
  return shouldDisableChannel(
    ctx,
    { status: err.status, type: err.type, code: err.code, message: err.detail ?? err.message },
    ch.type,
  );
}

/**
 * Disables a channel after a fatal upstream error: out of routing at once in this process, then saved and
 * announced by the channels module so other instances follow.
 */
export async function autoDisable(
  ctx: AppContext,
  channels: ChannelCache,
  ch: ChannelEntry,
  reason: string,
): Promise<void> {
  if (ch.status !== ChannelStatus.Enabled) return;
  channels.markDisabled(ch.id);
  try {
    await disableChannel(ctx, ch.id, reason);
  } catch (err) {
    ctx.log.error({ err, channel: ch.id }, 'could not save the automatic disable');
  }
}

/**
 * The channel as one attempt uses it: a multi-key channel with the key this attempt takes (the preferred one
 * while enabled, else at random or in turn) and its position; null when none of its keys is enabled.
 */
export function withKey(ch: ChannelEntry, preferredKey?: number): ChannelEntry | null {
  if (ch.keys.length <= 1) return ch;
  const k = chooseKey(ch.id, ch.keys, ch.keyMode, preferredKey);
  return k ? { ...ch, key: k.key, keyIndex: k.index } : null;
}

/** Whether another key of the same multi-key channel is still there to try. */
export const hasOtherKey = (ch: ChannelEntry) =>
  ch.keyIndex !== undefined && ch.keys.some((k, i) => i !== ch.keyIndex && !k.state);

/**
 * Disables the key an attempt used after a fatal upstream error, leaving the channel's other keys in service:
 * out of rotation at once in this process (the cached key list is shared with the attempt's copy), then
 * saved and announced. The channel goes too when it was its last enabled key.
 */
export async function autoDisableKey(
  ctx: AppContext,
  channels: ChannelCache,
  ch: ChannelEntry,
  reason: string,
): Promise<void> {
  const i = ch.keyIndex;
  if (i === undefined || ch.keys[i]?.state) return;
  const key = ch.keys[i];
  ch.keys[i] = {
    ...key,
    state: { status: ChannelStatus.AutoDisabled, reason, time: Math.floor(Date.now() / 1000) },
  };
  if (ch.keys.every((k) => k.state)) channels.markDisabled(ch.id);
  try {
    await disableKey(ctx, ch.id, key.fp, reason);
  } catch (err) {
    ctx.log.error({ err, channel: ch.id }, 'could not save the automatic key disable');
  }
}
