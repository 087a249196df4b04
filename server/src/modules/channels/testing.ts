import { ChannelStatus } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { disableChannel, enableChannel, shouldDisableChannel, tooSlow } from './health.ts';
import { mustGet } from './service.ts';
import { type ChannelRow, nowSec } from './store.ts';
import { sendTestRequest, testSupported } from './test-call.ts';
import { firstKey } from './upstream.ts';

export interface TestResult {
  success: boolean;
  message: string;
  /** Seconds the upstream took. */
  time: number;
}

const UNTESTABLE = new Set([2, 5, 36]);

function parseJson(text: string | null): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** Model for a test: the one asked for, else the channel's test model, else its first model. */
export function testModelOf(row: ChannelRow, asked?: string): string {
  return asked?.trim() || row.test_model?.trim() || (row.models ?? '').split(',')[0]?.trim() || 'gpt-4o-mini';
}

/**
 * Tests one channel and applies the health rules: a disabling error or a reply slower than
 * ChannelDisableThreshold disables an enabled channel (AutomaticDisableChannelEnabled and the channel's
 * auto_ban); a pass re-enables a channel that was disabled automatically (AutomaticEnableChannelEnabled).
 */
export async function testChannel(ctx: AppContext, id: number, askedModel?: string): Promise<TestResult> {
  const row = await mustGet(ctx.db.db, id);
  if (UNTESTABLE.has(Number(row.type)))
    throw new ApiError('channels of this type (Midjourney, Suno) cannot be tested');
  if (!testSupported(Number(row.type))) throw new ApiError('testing this channel type is not supported yet');
  const model = testModelOf(row, askedModel);
  const mapped = (parseJson(row.model_mapping)[model] as string | undefined) || model;
  const started = performance.now();
  let outcome: Awaited<ReturnType<typeof sendTestRequest>>;
  try {
    outcome = await sendTestRequest(
      ctx,
      {
        type: Number(row.type),
        baseUrl: row.base_url,
        key: firstKey(row.key),
        organization: row.openai_organization ?? '',
        other: row.other ?? '',
      },
      mapped,
      parseJson(row.param_override),
    );
  } catch (err) {
    outcome = { ok: false, failure: { message: (err as Error).message } };
  }
  const ms = Math.round(performance.now() - started);
  await ctx.db.db
    .updateTable('channels')
    .set({ response_time: ms, test_time: nowSec() })
    .where('id', '=', row.id)
    .execute();
  const time = ms / 1000;
  const autoBan = Number(row.auto_ban) === 1 && Number(row.status) === ChannelStatus.Enabled;

  if (!outcome.ok) {
    const reason = outcome.failure.message ?? `HTTP ${outcome.failure.status}`;
    let message = reason;
    if (autoBan && shouldDisableChannel(ctx, outcome.failure, Number(row.type))) {
      if (await disableChannel(ctx, row.id, reason)) message += ' (channel disabled automatically)';
    }
    return { success: false, message, time };
  }
  if (autoBan && ctx.options.bool('AutomaticDisableChannelEnabled') && tooSlow(ctx, ms)) {
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

let running: Promise<void> | undefined;

/** Tests every channel one after another in the background; false when a run is already going. */
export function testAllChannels(ctx: AppContext): boolean {
  if (running) return false;
  running = (async () => {
    const ids = await ctx.db.db.selectFrom('channels').select(['id', 'type']).orderBy('id').execute();
    for (const { id, type } of ids) {
      if (UNTESTABLE.has(Number(type)) || !testSupported(Number(type))) continue;
      try {
        await testChannel(ctx, Number(id));
      } catch (err) {
        ctx.log.warn({ err, channel: id }, 'channel test failed');
      }
    }
  })()
    .catch((err) => ctx.log.error({ err }, 'testing all channels failed'))
    .finally(() => {
      running = undefined;
    });
  return true;
}

/** Resolves when the current test-all run (if any) is over; for shutdown and tests. */
export const testAllDone = () => running ?? Promise.resolve();
