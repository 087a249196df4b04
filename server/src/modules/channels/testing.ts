import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { testChannel as sendTest } from '../../relay/call/channel-test.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { disableChannel, enableChannel, shouldDisableChannel, tooSlow } from './health.ts';
import { mustGet } from './service.ts';
import { isStopping } from './stopping.ts';
import { nowSec } from './store.ts';

export interface TestResult {
  success: boolean;
  message: string;
  /** Seconds the upstream took. */
  time: number;
}

const UNTESTABLE = new Set([2, 5, 36]);

export function assertTestable(type: number): void {
  if (UNTESTABLE.has(type)) throw new ApiError('channels of this type (Midjourney, Suno) cannot be tested');
  if (!adapterFor(type)) throw new ApiError('testing this channel type is not supported yet');
}

/**
 * Tests one channel through the relay's provider adapters and applies the health rules: a disabling error or
 * a reply slower than ChannelDisableThreshold disables an enabled channel (AutomaticDisableChannelEnabled
 * and the channel's auto_ban); a pass re-enables a channel that was disabled automatically
 * (AutomaticEnableChannelEnabled). Records response_time (ms) and test_time.
 */
export async function testChannel(ctx: AppContext, id: number, askedModel?: string): Promise<TestResult> {
  const row = await mustGet(ctx.db.db, id);
  assertTestable(Number(row.type));
  const r = await sendTest(ctx, row, askedModel?.trim() || undefined);
  await ctx.db.db
    .updateTable('channels')
    .set({ response_time: r.timeMs, test_time: nowSec() })
    .where('id', '=', row.id)
    .execute();
  const time = r.timeMs / 1000;
  const autoBan = Number(row.auto_ban) === 1 && Number(row.status) === ChannelStatus.Enabled;

  if (!r.success) {
    let message = r.message || `HTTP ${r.status}`;
    const failure = { status: r.status, type: r.type, code: r.code, message: r.message };
    if (autoBan && shouldDisableChannel(ctx, failure, Number(row.type))) {
      if (await disableChannel(ctx, row.id, message)) message += ' (channel disabled automatically)';
    }
    return { success: false, message, time };
  }
  if (autoBan && ctx.options.bool('AutomaticDisableChannelEnabled') && tooSlow(ctx, r.timeMs)) {
    const reason = `response time ${time.toFixed(2)} s is over the ${ctx.options.float('ChannelDisableThreshold')} s limit`;
    await disableChannel(ctx, row.id, reason);
    return { success: false, message: `${reason} (channel disabled automatically)`, time };
  }
  if (
    Number(row.status) === ChannelStatus.AutoDisabled &&
    ctx.options.bool('AutomaticEnableChannelEnabled')
  ) {
    await enableChannel(ctx, row.id);
  }
  return { success: true, message: '', time };
}

/** Gateways (contexts) with a test-all run going. */
const running = new WeakSet<AppContext>();

/** Tests every channel one after another in the background; false when a run is already going. */
export function testAllChannels(ctx: AppContext): boolean {
  if (running.has(ctx)) return false;
  running.add(ctx);
  void (async () => {
    const ids = await ctx.db.db.selectFrom('channels').select(['id', 'type']).orderBy('id').execute();
    for (const { id, type } of ids) {
      if (isStopping(ctx)) break;
      if (UNTESTABLE.has(Number(type)) || !adapterFor(Number(type))) continue;
      try {
        await testChannel(ctx, Number(id));
      } catch (err) {
        ctx.log.warn({ err, channel: id }, 'channel test failed');
      }
    }
  })()
    .catch((err) => ctx.log.error({ err }, 'testing all channels failed'))
    .finally(() => running.delete(ctx));
  return true;
}
