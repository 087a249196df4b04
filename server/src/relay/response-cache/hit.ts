import { LogType } from '@modelgate/shared';
import type { Caller } from '../admit/auth.ts';
import type { RelayInput } from '../admit/relay-input.ts';
import { type Price, textQuota } from '../billing/quota.ts';
import type { RelayReply, RelayRequest } from '../http/exchange.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { chargeOf, subjectOf, usageLogRow } from '../settle/usage-log.ts';
import type { CacheEntry } from './entry.ts';
import { CACHE_HEADER } from './settings.ts';

/** A cache hit's price: `ratio` times what the stored answer's usage costs at this caller's price, whole quota. */
export function hitQuota(entry: CacheEntry, price: Price, quotaPerUnit: number, ratio: number) {
  const full = textQuota(entry.usage, price, quotaPerUnit);
  return { full, charged: Math.round(full * ratio) };
}

/**
 * Charges a hit (atomically, through the ledger: never past a balance) and queues its log row: no channel, no
 * tokens billed, the tokens it saved in `other`. Returns the quota charged; throws a 403 when the balance
 * cannot pay even the hit.
 */
export async function chargeHit(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
  price: Price & { unset: boolean },
  entry: CacheEntry,
  ratio: number,
  startedAt: number,
): Promise<{ quota: number; full: number }> {
  const { ctx } = state;
  const { full, charged } = hitQuota(entry, price, ctx.options.float('QuotaPerUnit'), ratio);
  const ask = { need: charged, amount: charged };
  const hold = await state.ledger.hold(
    caller.user.balance,
    caller.token?.balance,
    ask,
    caller.token?.unlimited ?? true,
  );
  if (typeof hold === 'string')
    throw new RelayError(
      403,
      'insufficient quota for a cached answer',
      'insufficient_quota',
      'insufficient_quota',
    );
  const settled = state.ledger.settle(hold, charged).then((quota) => {
    if (quota === null) return 0;
    const { usage } = entry;
    const other = {
      content_code: 'response_cache_hit',
      response_cache_hit: true,
      response_cache_ratio: ratio,
      saved_prompt_tokens: usage.promptTokens,
      saved_completion_tokens: usage.completionTokens,
      saved_quota: full - quota,
      model_ratio: price.modelRatio,
      group_ratio: price.groupRatio,
      completion_ratio: price.completionRatio,
      model_price: price.modelPrice,
      is_stream: input.info.stream,
      use_time: Math.round(performance.now() - startedAt),
      request_id: req.id,
    };
    const outcome = {
      type: LogType.Consume,
      content: `响应缓存命中，节省 ${usage.promptTokens + usage.completionTokens} tokens`,
      other,
      quota,
    };
    const log = ctx.options.bool('LogConsumeEnabled')
      ? usageLogRow(subjectOf({ caller, input, req }), outcome)
      : undefined;
    state.writer.push(chargeOf(caller, outcome, true, log));
    return quota;
  });
  return { quota: (await state.writer.track(settled)) ?? 0, full };
}

/** Writes a stored answer to the client as it was first written: a JSON body, or the stream's frames at once. */
export function replay(reply: RelayReply, entry: CacheEntry): void {
  reply.code(200).header('content-type', entry.contentType).header(CACHE_HEADER, 'hit').send(entry.body);
}
