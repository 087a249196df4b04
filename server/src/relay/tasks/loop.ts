import type { AppContext } from '../../context.ts';

/** One platform of asynchronous tasks (Midjourney, Suno): how to bring its unfinished tasks up to date. */
export interface TaskPlatform {
  name: string;
  /** One round: read the unfinished tasks, ask their channels in batches, save what changed. */
  poll(): Promise<void>;
}

/**
 * Runs a platform's rounds every TASK_POLL_INTERVAL seconds on the master node when UPDATE_TASK is on; a
 * round never overlaps the previous one. Stopped at shutdown.
 */
export function startTaskLoop(ctx: AppContext, platform: TaskPlatform): void {
  const { nodeType, updateTask, taskPollIntervalSec } = ctx.config;
  if (nodeType !== 'master' || !updateTask || taskPollIntervalSec <= 0) return;
  let busy = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    platform
      .poll()
      .catch((err) => ctx.log.error({ err, platform: platform.name }, 'task loop round failed'))
      .finally(() => {
        busy = false;
      });
  }, taskPollIntervalSec * 1000);
  timer.unref();
  ctx.onClose(() => {
    stopped = true;
    clearInterval(timer);
  });
}
