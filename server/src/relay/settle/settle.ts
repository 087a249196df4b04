import { LogType } from '@modelgate/shared';
import type { Produced } from '../admit/relay-input.ts';
import { upstreamPrice } from '../billing/channel-cost.ts';
import { imageQuota, logContent } from '../billing/charge.ts';
import { textQuota, webSearchQuota } from '../billing/quota.ts';
import type { SettledCall } from '../relay-call.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import { chargeOf, type LogOutcome, subjectOf, usageLogRow } from './usage-log.ts';

/**
 * Turns the hold into the charge, queues the counters and the usage log row (with the upstream cost: the same
 * formula at the channel's price, billing/channel-cost.ts), and checks the quota warning.
 * Returns the quota charged, or null when the hold had already been settled.
 */
export function settle(call: SettledCall, produced: Produced, ch: ChannelEntry): Promise<number | null> {
  return call.state.writer.track(charge(call, produced, ch));
}

async function charge(call: SettledCall, produced: Produced, ch: ChannelEntry): Promise<number | null> {
  const { state, req, caller, input, hold, price, chain, startedAt } = call;
  const { ctx } = state;
  const qpu = ctx.options.float('QuotaPerUnit');
  const { usage } = produced;
  const images = input.mode === 'images' ? input.info.images : undefined;
  // Web searches the upstream ran are billed per call on top of the tokens (its hosted search tool).
  const searches = usage.webSearches ?? 0;
  const searchPrice = searches > 0 ? ctx.options.float('global.web_search_price_per_1k') : 0;
  const priced =
    produced.quota ??
    (images
      ? imageQuota(price, input.info.model, images, qpu)
      : textQuota(usage, price, qpu) + webSearchQuota(searches, searchPrice, price, qpu));
  const before = caller.user.balance.available + hold.amount;
  const quota = await state.ledger.settle(hold, priced);
  if (quota === null) return null;
  caller.probe?.charged(quota);
  const upstreamAt = upstreamPrice(state.prices, ch, input.info.model, price);
  const cost =
    produced.cost ??
    (images
      ? imageQuota(upstreamAt, input.info.model, images, qpu)
      : textQuota(usage, upstreamAt, qpu) + webSearchQuota(searches, searchPrice, upstreamAt, qpu));
  const useMs = performance.now() - startedAt;
  const upstreamModel = ch.modelMapping[input.info.model] || input.info.model;
  const mapped = upstreamModel !== input.info.model;
  const isStream = input.info.stream ? 1 : 0;
  // Built by assignment rather than object spreads (cheaper on every request), in the order the log shows.
  // content_code: the console writes the Details text from these fields in the reader's language.
  const other: Record<string, unknown> = {
    content_code: 'consume',
    model_ratio: price.modelRatio,
    group_ratio: price.groupRatio,
    completion_ratio: price.completionRatio,
    model_price: price.modelPrice,
    cache_tokens: usage.cachedTokens,
    cache_ratio: price.cacheRatio,
  };
  if (usage.cacheWriteTokens || usage.cacheWrite1hTokens) {
    other.cache_creation_tokens = usage.cacheWriteTokens ?? 0;
    other.cache_creation_tokens_1h = usage.cacheWrite1hTokens ?? 0;
    other.cache_creation_ratio = price.cacheWriteRatio;
  }
  if (price.unset) other.unpriced = true;
  if (usage.reasoningTokens) other.reasoning_tokens = usage.reasoningTokens;
  if (searches > 0) {
    other.web_search = true;
    other.web_search_call_count = searches;
    other.web_search_price = searchPrice;
  }
  other.frt = isStream ? produced.firstAt : -1;
  other.first_time = produced.firstAt;
  other.is_stream = isStream === 1;
  other.use_time = Math.round(useMs);
  other.request_id = req.id;
  const adminInfo: Record<string, unknown> = { use_channel: chain.map(String) };
  if (ch.keyIndex !== undefined) {
    adminInfo.is_multi_key = true;
    adminInfo.multi_key_index = ch.keyIndex;
  }
  other.admin_info = adminInfo;
  if (produced.other) Object.assign(other, produced.other);
  if (input.fallbackFrom) other.fallback_from = input.fallbackFrom;
  // The upstream counted past the hold while a limit was already spent: charged up to the hold (ledger).
  if (quota < priced) other.unbilled_quota = priced - quota;
  if (mapped) {
    other.is_model_mapped = true;
    other.upstream_model_name = upstreamModel;
  }
  let content = logContent(price);
  if (chain.length > 1) content += `，重试：${chain.join('->')}`;
  if (produced.note) content += `（${produced.note}）`;
  const outcome: LogOutcome = {
    type: LogType.Consume,
    content,
    other,
    channelId: ch.id,
    quota,
    cost,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    useTime: Math.round(useMs / 1000),
    firstTime: produced.firstAt,
  };
  const log = ctx.options.bool('LogConsumeEnabled') ? usageLogRow(subjectOf(call), outcome) : undefined;
  const nothing = usage.promptTokens + usage.completionTokens === 0;
  state.writer.push(chargeOf(caller, outcome, !nothing, log));
  if (quota > 0) state.notifier.afterCharge(caller.user, before, caller.user.balance.available);
  return quota;
}
