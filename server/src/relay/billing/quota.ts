/**
 * The quota formulas, computed exactly: every ratio is taken as the decimal it is
 * written as (0.075 is 75/1000, not the nearest double) and the result is rounded half away from zero.
 */
export interface Price {
  modelRatio: number;
  completionRatio: number;
  cacheRatio: number;
  /** Price of a prompt token written to the cache (5-minute TTL), relative to a plain one (Anthropic: 1.25). */
  cacheWriteRatio: number;
  /** US$ per request when the model is priced per call; -1 otherwise. */
  modelPrice: number;
  groupRatio: number;
}

/**
 * A model's price with a group ratio (`unset`: the model has no price of its own), built field by field
 * rather than spread from the cached (frozen) pricing: it runs on every request.
 */
export function withGroupRatio(
  m: Readonly<Omit<Price, 'groupRatio'>>,
  groupRatio: number,
  unset = false,
): Price & { unset: boolean } {
  return {
    modelRatio: m.modelRatio,
    completionRatio: m.completionRatio,
    cacheRatio: m.cacheRatio,
    cacheWriteRatio: m.cacheWriteRatio,
    modelPrice: m.modelPrice,
    groupRatio,
    unset,
  };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the provider's cache (part of promptTokens). */
  cachedTokens: number;
  /** Prompt tokens written to the cache with a 5-minute (or unknown) TTL (part of promptTokens). */
  cacheWriteTokens?: number;
  /** Prompt tokens written to the cache with a 1-hour TTL (part of promptTokens). */
  cacheWrite1hTokens?: number;
  /** Output tokens spent on reasoning (part of completionTokens; billed as output, shown in the log). */
  reasoningTokens?: number;
  /** Web searches the upstream ran (its hosted web search tool), billed per call on top of the tokens. */
  webSearches?: number;
}

/**
 * A 1-hour cache write costs 2x a plain prompt token where a 5-minute one costs 1.25x (Anthropic's price
 * list): the 1-hour ratio is the 5-minute ratio x 1.6.
 */
export const CACHE_WRITE_1H_FACTOR = 1.6;

type Frac = [bigint, bigint];

const fracCache = new Map<number, Frac>();

/** A finite number as the exact fraction of its shortest decimal form (ratios repeat, so results are kept). */
export function frac(x: number): Frac {
  const hit = fracCache.get(x);
  if (hit) return hit;
  const f = toFrac(x);
  if (fracCache.size < 10_000) fracCache.set(x, f);
  return f;
}

function toFrac(x: number): Frac {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  const [mantissa, expText] = x.toString().split('e');
  const neg = mantissa.startsWith('-');
  const m = neg ? mantissa.slice(1) : mantissa;
  const dot = m.indexOf('.');
  const scale = (dot >= 0 ? m.length - dot - 1 : 0) - (expText ? Number(expText) : 0);
  let num = BigInt(m.replace('.', ''));
  let den = 1n;
  if (scale > 0) den = 10n ** BigInt(scale);
  else num *= 10n ** BigInt(-scale);
  return [neg ? -num : num, den];
}

const mul = (a: Frac, b: Frac): Frac => [a[0] * b[0], a[1] * b[1]];
const add = (a: Frac, b: Frac): Frac => [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
const int = (n: number): Frac => [BigInt(Math.trunc(n)), 1n];

function roundHalfAway([num, den]: Frac): number {
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const r = (2n * abs + den) / (2n * den);
  return Number(neg ? -r : r);
}

/** The exact product of decimal factors, rounded half away from zero. */
export function productQuota(factors: number[]): number {
  let acc: Frac = [1n, 1n];
  for (const f of factors) acc = mul(acc, frac(f));
  return roundHalfAway(acc);
}

/** Quota for a per-call price: price x QuotaPerUnit x group ratio, rounded. */
export function fixedQuota(price: Price, quotaPerUnit: number, times = 1): number {
  return productQuota([price.modelPrice, quotaPerUnit, price.groupRatio, times]);
}

/** Quota for `calls` web searches at `per1k` US$ a thousand: calls x per1k / 1000 x QuotaPerUnit x group ratio. */
export function webSearchQuota(calls: number, per1k: number, price: Price, quotaPerUnit: number): number {
  if (calls <= 0 || per1k <= 0) return 0;
  return productQuota([calls, per1k, 0.001, quotaPerUnit, price.groupRatio]);
}

/**
 * Quota for one text request:
 * round(((P - K - W - H) + K x CacheRatio + (W + H x 1.6) x CacheWriteRatio + C x CompletionRatio)
 *   x ModelRatio x GroupRatio)
 * with K cache reads, W 5-minute and H 1-hour cache writes; at least 1 when the ratios are not zero; a
 * per-call price instead when the model has one. No tokens at all (the upstream produced nothing) costs nothing.
 */
export function textQuota(usage: Usage, price: Price, quotaPerUnit: number): number {
  const { promptTokens: p, completionTokens: c } = usage;
  if (p + c <= 0) return 0;
  if (price.modelPrice >= 0) return fixedQuota(price, quotaPerUnit);
  const k = Math.min(Math.max(usage.cachedTokens, 0), p);
  const w = Math.min(Math.max(usage.cacheWriteTokens ?? 0, 0), p - k);
  const h = Math.min(Math.max(usage.cacheWrite1hTokens ?? 0, 0), p - k - w);
  let tokens = add(
    add(int(p - k - w - h), mul(int(k), frac(price.cacheRatio))),
    mul(int(c), frac(price.completionRatio)),
  );
  if (w + h > 0) {
    const writes = add(int(w), mul(int(h), frac(CACHE_WRITE_1H_FACTOR)));
    tokens = add(tokens, mul(writes, frac(price.cacheWriteRatio)));
  }
  const ratio = mul(frac(price.modelRatio), frac(price.groupRatio));
  const quota = roundHalfAway(mul(tokens, ratio));
  return ratio[0] !== 0n && quota <= 0 ? 1 : quota;
}

/** What `prompt` input and `answer` output tokens cost: the charge's formula, so holds round as charges do. */
export function tokensQuota(prompt: number, answer: number, price: Price, quotaPerUnit: number): number {
  return textQuota({ promptTokens: prompt, completionTokens: answer, cachedTokens: 0 }, price, quotaPerUnit);
}

/** Audio prices of a model: audio input vs text input, and audio output vs audio input. */
export interface AudioPrice {
  audioRatio: number;
  audioCompletionRatio: number;
}

/** Usage with audio: text counts plus the audio parts of the prompt and of the answer. */
export interface AudioUsage extends Usage {
  /** Uncached audio input tokens (part of promptTokens, not of cachedTokens). */
  audioPromptTokens: number;
  /** Audio output tokens (part of completionTokens). */
  audioCompletionTokens: number;
}

/**
 * Quota for a response with audio (with cached input priced as in textQuota):
 * round(((P - K - A) + K x CacheRatio + A x AudioRatio + (C - B) x CompletionRatio
 *   + B x AudioRatio x AudioCompletionRatio) x ModelRatio x GroupRatio)
 * with K cached input tokens (text or audio: OpenAI prices both alike), A uncached audio input and B audio
 * output; at least 1 when the ratios are not zero; a per-call price instead when the model has one.
 */
export function audioQuota(usage: AudioUsage, price: Price, audio: AudioPrice, quotaPerUnit: number): number {
  const { promptTokens: p, completionTokens: c } = usage;
  if (p + c <= 0) return 0;
  if (price.modelPrice >= 0) return fixedQuota(price, quotaPerUnit);
  const k = Math.min(Math.max(usage.cachedTokens, 0), p);
  const a = Math.min(Math.max(usage.audioPromptTokens, 0), p - k);
  const b = Math.min(Math.max(usage.audioCompletionTokens, 0), c);
  const audioIn = frac(audio.audioRatio);
  const audioOut = mul(audioIn, frac(audio.audioCompletionRatio));
  const tokens = [
    int(p - k - a),
    mul(int(k), frac(price.cacheRatio)),
    mul(int(a), audioIn),
    mul(int(c - b), frac(price.completionRatio)),
    mul(int(b), audioOut),
  ].reduce(add);
  const ratio = mul(frac(price.modelRatio), frac(price.groupRatio));
  const quota = roundHalfAway(mul(tokens, ratio));
  return ratio[0] !== 0n && quota <= 0 ? 1 : quota;
}
