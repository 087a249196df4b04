import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { testChannel as sendTest } from '../../relay/call/channel-test.ts';
import { toEntry } from '../../relay/table-cache/channels.ts';
import { keyRefused, shouldDisableChannel } from './health.ts';
import { disableKey } from './key-status.ts';
import { type KeyView, keyViews } from './key-views.ts';
import { mustGet } from './service.ts';
import { assertTestable, type TestResult } from './testing.ts';

/**
 * Tests one key of a multi-key channel with the channel's test request. With the channel's auto_ban on, a key the
 * upstream refuses is disabled alone while another key is enabled (as the relay does), and a disabling error
 * under the health rules disables it in any case (with the channel, when it was the last key). Answers with every key's status after the test.
 */
export async function testKey(
  ctx: AppContext,
  id: number,
  index: number,
  model?: string,
): Promise<TestResult & { keys: KeyView[] }> {
  const row = await mustGet(ctx.db.db, id);
  assertTestable(Number(row.type));
  const entry = toEntry(row);
  const key = entry.keys[index];
  if (!key) throw new ApiError(`the channel has no key #${index}`, 404);
  const r = await sendTest(ctx, { ...entry, key: key.key, keyIndex: index }, model?.trim() || undefined);
  let message = r.message;
  if (!r.success) {
    message = r.status ? `HTTP ${r.status}: ${r.message}` : r.message;
    const failure = { status: r.status, type: r.type, code: r.code, message: r.message };
    const others = entry.keys.some((k, i) => i !== index && !k.state);
    const disabling = (others && keyRefused(failure)) || shouldDisableChannel(ctx, failure, Number(row.type));
    if (Number(row.auto_ban) === 1 && !key.state && disabling) {
      if (await disableKey(ctx, id, key.fp, `test: ${message}`)) message += ' (key disabled automatically)';
    }
  }
  return {
    success: r.success,
    message,
    time: r.timeMs / 1000,
    keys: keyViews(await mustGet(ctx.db.db, id)),
  };
}
