import type { AppContext } from '../../context.ts';
import { updateAllBalances } from './balance.ts';
import { markStopping } from './stopping.ts';
import { testAllChannels } from './testing.ts';

/**
 * Background jobs of the master node: test every channel every CHANNEL_TEST_FREQUENCY minutes and
 * refresh balances every CHANNEL_UPDATE_FREQUENCY minutes (0 = off). Stopped at shutdown.
 */
export function startChannelJobs(ctx: AppContext): void {
  if (ctx.config.nodeType !== 'master') return;
  const timers: NodeJS.Timeout[] = [];
  let balanceBusy = false;
  const testMin = ctx.config.channelTestFrequencyMin;
  const balanceMin = ctx.config.channelUpdateFrequencyMin;
  if (testMin > 0) timers.push(setInterval(() => testAllChannels(ctx), testMin * 60_000));
  if (balanceMin > 0) {
    timers.push(
      setInterval(() => {
        if (balanceBusy) return;
        balanceBusy = true;
        updateAllBalances(ctx)
          .catch((err) => ctx.log.error({ err }, 'balance refresh failed'))
          .finally(() => {
            balanceBusy = false;
          });
      }, balanceMin * 60_000),
    );
  }
  for (const t of timers) t.unref();
  ctx.onClose(() => {
    // Runs in progress stop before their next channel; shutdown does not wait for an upstream to answer.
    markStopping(ctx);
    for (const t of timers) clearInterval(t);
  });
}
