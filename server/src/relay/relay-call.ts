import type { RelayMeter } from '../infra/metrics/relay-metrics.ts';
import type { Hold } from '../ledger/balance.ts';
import type { Caller } from './admit/auth.ts';
import type { RelayInput } from './admit/relay-input.ts';
import type { Price } from './billing/quota.ts';
import type { RelayReply, RelayRequest } from './http/exchange.ts';
import type { RelayState } from './relay-state.ts';

/** One relay request as it goes through the pipeline: who asks what, where the answer goes, since when. */
export interface RelayCall {
  state: RelayState;
  req: RelayRequest;
  reply: RelayReply;
  caller: Caller;
  input: RelayInput;
  /** performance.now() when the request reached the relay. */
  startedAt: number;
  meter?: RelayMeter;
  /** The channels tried so far, in order (the log's retry chain). */
  chain: number[];
}

/** A call whose price is known and whose quota is held: what settling it needs. */
export interface HeldCall extends RelayCall {
  price: Price & { unset: boolean };
  hold: Hold;
}

/** What settle() reads of a held call (a realtime session, which has no HTTP reply, builds just this). */
export type SettledCall = Pick<
  HeldCall,
  'state' | 'req' | 'caller' | 'input' | 'startedAt' | 'chain' | 'price' | 'hold'
>;
