import type { RelayState } from '../state.ts';
import type { TaskPlatform } from '../tasks/loop.ts';
import { failTasks, refreshTasks } from './refresh.ts';
import { unfinishedTasks } from './store.ts';

/** Unfinished tasks read per round; the rest wait for the next one. */
const ROUND_LIMIT = 1000;

/**
 * One round of the Suno task loop: every unfinished task is asked about through its channel (`POST /suno/fetch`
 * with the ids, in batches per channel); tasks without an upstream id, or whose channel is gone, fail and are
 * refunded; tasks past TASK_TIMEOUT_MINUTES fail and are refunded.
 */
export async function pollSuno(state: RelayState): Promise<void> {
  const rows = await unfinishedTasks(state.ctx, ROUND_LIMIT);
  if (!rows.length) return;
  const orphans = rows.filter((r) => !r.task_id);
  if (orphans.length) await failTasks(state, orphans, 'the upstream returned no task id');
  await refreshTasks(
    state,
    rows.filter((r) => r.task_id),
    true,
  );
}

export const sunoPlatform = (state: RelayState): TaskPlatform => ({
  name: 'suno',
  poll: () => pollSuno(state),
});
