import { ChannelStatus } from '@modelgate/shared';
import type { Caller } from '../admit/auth.ts';
import type { RelayState } from '../relay-state.ts';
import type { AttemptPlan } from '../route/attempts.ts';
import { type Lease, pinnedLease } from '../route/router.ts';

/**
 * The channel a task submit is bound to before any routing: its parent task's for a follow-up (the upstream
 * keeps the parent there; `gone` is thrown once that channel is not enabled), the admin's pinned one, else null
 * (routed by group and model).
 */
export function taskFixedLease(
  state: RelayState,
  caller: Caller,
  parentChannelId: number | undefined,
  gone: () => Error,
): Lease | null {
  if (parentChannelId !== undefined) {
    const ch = state.channels.get(parentChannelId);
    if (!ch || ch.status !== ChannelStatus.Enabled) throw gone();
    return pinnedLease(ch);
  }
  return caller.pinned ? pinnedLease(caller.pinned) : null;
}

type TaskRoute = Pick<AttemptPlan, 'state' | 'group' | 'model' | 'tiers' | 'fixed' | 'retries' | 'chain'>;

/** Where a task submit may go: its fixed channel alone, else the group's channels of the model, RetryTimes over. */
export const taskRoute = (
  state: RelayState,
  caller: Caller,
  model: string,
  fixed: Lease | null,
): TaskRoute => ({
  state,
  group: caller.group,
  model,
  tiers: fixed ? [] : state.channels.tiers(caller.group, model),
  fixed,
  retries: Math.max(0, state.ctx.options.int('RetryTimes')),
  chain: [],
});
