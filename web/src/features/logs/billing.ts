import { formatUsd } from '@modelgate/shared';

/**
 * The billing explanation of one usage-log row, as plain data (the page renders it). Input: the row's
 * `other` JSON written by the relay. Prices are US$ per 1M tokens: input = 2 x model ratio.
 */
export interface LogOther {
  model_ratio?: number;
  model_price?: number;
  group_ratio?: number;
  completion_ratio?: number;
  cache_tokens?: number;
  cache_ratio?: number;
  cache_creation_tokens?: number;
  cache_creation_ratio?: number;
  /** Prompt tokens written to the cache for 1 hour (Anthropic), billed at the creation ratio x 1.6. */
  cache_creation_tokens_1h?: number;
  reasoning_tokens?: number;
  is_model_mapped?: boolean;
  upstream_model_name?: string;
  reasoning_effort?: string;
  claude?: boolean;
  audio_input?: number;
  audio_output?: number;
  audio_ratio?: number;
  audio_completion_ratio?: number;
  web_search?: boolean;
  web_search_call_count?: number;
  web_search_price?: number;
  file_search?: boolean;
  file_search_call_count?: number;
  file_search_price?: number;
  use_time?: number;
  frt?: number;
  admin_info?: { use_channel?: string[] };
  /** What the Details text says, written by the console from these fields (rows from before it: none). */
  content_code?: string;
  unpriced?: boolean;
  refund?: boolean;
  task_id?: string;
  reason?: string;
  [key: string]: unknown;
}

export function parseOther(text: string | undefined): LogOther {
  if (!text) return {};
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as LogOther) : {};
  } catch {
    return {};
  }
}

const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
/** Up to 6 decimals without trailing zeros. */
export const fmt = (v: number) => String(Number(v.toFixed(6)));
/** A US$ amount as the explanation shows it: `$0.02725`. */
const usd = (v: number) => `$${fmt(v)}`;
/** A figure exactly as computed (ten significant digits, no float noise, never in exponent form). */
export const exact = (v: number) =>
  Number(v.toPrecision(10))
    .toFixed(12)
    .replace(/\.?0+$/, '');

/** A 1-hour cache write costs 1.6x a 5-minute one (Anthropic: 2x against 1.25x a plain prompt token). */
const CACHE_WRITE_1H_FACTOR = 1.6;

export type BillingLine = { key: string; values?: Record<string, string | number> };

/** A refund (a failed task's charge given back): a consumption row with a negative quota. */
export const isRefund = (o: LogOther, row: { quota: number }) => o.refund === true || row.quota < 0;

/**
 * Lines (i18n keys under `log.billing.*` with values) explaining how `quota` was computed: the formula's exact
 * figure, then the whole quota it was rounded to (or, where the relay added what the formula does not show,
 * the quota charged).
 */
export function explainBilling(
  o: LogOther,
  row: { prompt_tokens: number; completion_tokens: number; quota: number },
  quotaPerUnit: number,
): BillingLine[] {
  const lines: BillingLine[] = [];
  if (isRefund(o, row)) {
    const q = Math.abs(row.quota);
    return [
      { key: 'refund', values: { quota: q, dollars: formatUsd(q / quotaPerUnit), task: o.task_id ?? '-' } },
    ];
  }
  if (o.response_cache_hit === true) {
    const full = num(o.saved_quota) + row.quota;
    return [
      {
        key: 'responseCacheHit',
        values: {
          full,
          ratio: fmt(num(o.response_cache_ratio)),
          quota: row.quota,
          dollars: formatUsd(row.quota / quotaPerUnit),
        },
      },
    ];
  }
  const group = num(o.group_ratio, 1);
  const price = num(o.model_price, -1);
  if (price >= 0) {
    lines.push({ key: 'fixed', values: { price: usd(price), group: fmt(group), total: usd(price * group) } });
    return lines;
  }
  const ratio = num(o.model_ratio);
  const completion = num(o.completion_ratio, 1);
  const inPrice = ratio * 2;
  const outPrice = inPrice * completion;
  lines.push({
    key: 'ratios',
    values: { model: fmt(ratio), completion: fmt(completion), group: fmt(group) },
  });
  lines.push({ key: 'prices', values: { input: usd(inPrice), output: usd(outPrice) } });
  const cache = num(o.cache_tokens);
  const cacheRatio = num(o.cache_ratio, 1);
  const creation = num(o.cache_creation_tokens);
  const creationRatio = num(o.cache_creation_ratio, 1);
  const creation1h = num(o.cache_creation_tokens_1h);
  const creationRatio1h = creationRatio * CACHE_WRITE_1H_FACTOR;
  if (cache > 0)
    lines.push({
      key: 'cache',
      values: { tokens: cache, ratio: fmt(cacheRatio), price: usd(inPrice * cacheRatio) },
    });
  if (creation > 0)
    lines.push({
      key: 'cacheCreation',
      values: { tokens: creation, ratio: fmt(creationRatio), price: usd(inPrice * creationRatio) },
    });
  if (creation1h > 0)
    lines.push({
      key: 'cacheCreation1h',
      values: { tokens: creation1h, ratio: fmt(creationRatio1h), price: usd(inPrice * creationRatio1h) },
    });
  const audioIn = num(o.audio_input);
  const audioOut = num(o.audio_output);
  if (audioIn || audioOut) {
    lines.push({
      key: 'audio',
      values: {
        input: audioIn,
        output: audioOut,
        ratio: fmt(num(o.audio_ratio, 1)),
        completion: fmt(num(o.audio_completion_ratio, 1)),
      },
    });
  }
  if (o.web_search)
    lines.push({
      key: 'webSearch',
      values: { calls: num(o.web_search_call_count), price: usd(num(o.web_search_price)) },
    });
  if (o.file_search)
    lines.push({
      key: 'fileSearch',
      values: { calls: num(o.file_search_call_count), price: usd(num(o.file_search_price)) },
    });
  // The token part of the charge: uncached prompt + cached x ratio + created x ratio + completion x ratio.
  const plain = Math.max(0, row.prompt_tokens - cache - creation - creation1h);
  const weighted =
    plain +
    cache * cacheRatio +
    creation * creationRatio +
    creation1h * creationRatio1h +
    row.completion_tokens * completion;
  const dollars = (weighted / 1_000_000) * inPrice * group;
  // The relay computes in quota: tokens x model ratio x group ratio, rounded half up, at least 1 when not free;
  // web searches add calls x price / 1000 x QuotaPerUnit x group ratio, rounded on their own.
  const tokenQuota = weighted * ratio * group;
  const searchQuota = o.web_search
    ? ((num(o.web_search_call_count) * num(o.web_search_price)) / 1000) * quotaPerUnit * group
    : 0;
  const exactQuota = tokenQuota + searchQuota;
  const tokenRounded = Math.round(tokenQuota);
  const rounded = tokenRounded + Math.round(searchQuota);
  const expected = (tokenRounded <= 0 && ratio * group > 0 ? 1 : tokenRounded) + Math.round(searchQuota);
  lines.push({
    key: creation1h > 0 ? 'processWithCreation1h' : creation > 0 ? 'processWithCreation' : 'process',
    values: {
      plain,
      cache,
      cacheRatio: fmt(cacheRatio),
      creation,
      creationRatio: fmt(creationRatio),
      creation1h,
      creationRatio1h: fmt(creationRatio1h),
      completion: row.completion_tokens,
      completionRatio: fmt(completion),
      input: usd(inPrice),
      group: fmt(group),
      total: `$${exact(dollars)}`,
    },
  });
  const charged = {
    exact: exact(exactQuota),
    quota: row.quota,
    dollars: formatUsd(row.quota / quotaPerUnit),
  };
  const key =
    row.quota !== expected
      ? 'charged'
      : rounded !== expected
        ? 'minimum'
        : String(row.quota) === charged.exact
          ? 'whole'
          : 'rounded';
  lines.push({ key, values: charged });
  return lines;
}
