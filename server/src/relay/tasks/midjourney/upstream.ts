import type { RelayState } from '../../relay-state.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { callTaskChannel, type TaskReply } from '../upstream.ts';

export type MjReply = TaskReply;

/** Timeouts of the calls the relay makes (midjourney-proxy answers a submit once Discord took it). */
export const SUBMIT_TIMEOUT_MS = 60_000;
export const SEED_TIMEOUT_MS = 30_000;
export const POLL_TIMEOUT_MS = 15_000;

/** One call to a midjourney-proxy channel, with the channel's secret in `mj-api-secret`. */
export const callChannel = (
  state: RelayState,
  ch: ChannelEntry,
  req: { method: 'GET' | 'POST'; path: string; body?: unknown; timeoutMs: number },
): Promise<MjReply> => callTaskChannel(state, ch, { ...req, auth: { 'mj-api-secret': ch.key } });
