import type { RoutingMode } from '@modelgate/shared';
import type { ChannelEntry } from '../table-cache/channels.ts';
import { draw } from './failover.ts';

/** What a mode may read about the request and the channels' load. */
export interface ModeInput {
  /** Requests this instance has in flight on a channel. */
  inFlight(id: number): number;
  /** What the request would cost on a channel (cheapest mode). */
  cost(ch: ChannelEntry): number;
  /** The channel id the tier's last round-robin turn went to (0 = none yet). */
  lastTurn: number;
}

/** The candidates that share the lowest score; weighted random among them. */
function lowest(candidates: ChannelEntry[], score: (c: ChannelEntry) => number): ChannelEntry {
  let best = Number.POSITIVE_INFINITY;
  let ties: ChannelEntry[] = [];
  for (const c of candidates) {
    const s = score(c);
    if (s < best) {
      best = s;
      ties = [c];
    } else if (s === best) ties.push(c);
  }
  return draw(ties);
}

/** Round robin: the candidate with the next id after the last turn's, wrapping to the lowest. */
function nextTurn(candidates: ChannelEntry[], last: number): ChannelEntry {
  let next: ChannelEntry | undefined;
  let first = candidates[0];
  for (const c of candidates) {
    if (c.id < first.id) first = c;
    if (c.id > last && (!next || c.id < next.id)) next = c;
  }
  return next ?? first;
}

/**
 * One candidate of a tier by the group's mode. Weighted: at random in proportion to weight + 10. Round robin:
 * each channel in turn, weights ignored. Least requests: the fewest requests in flight, ties weighted random.
 * Cheapest: the lowest upstream price of the channel (route/cheapest-cost.ts), ties weighted random.
 */
export function chooseBy(mode: RoutingMode, candidates: ChannelEntry[], input: ModeInput): ChannelEntry {
  if (candidates.length === 1) return candidates[0];
  switch (mode) {
    case 'round_robin':
      return nextTurn(candidates, input.lastTurn);
    case 'least_requests':
      return lowest(candidates, (c) => input.inFlight(c.id));
    case 'cheapest':
      return lowest(candidates, input.cost);
    default:
      return draw(candidates);
  }
}
