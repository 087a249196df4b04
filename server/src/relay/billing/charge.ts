import type { HoldAsk } from '../../ledger/balance.ts';
import type { Caller } from '../admit/auth.ts';
import type { Inspected, Mode } from '../admit/inspect-request.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { ANSWER_TOKENS_BOUND } from './prompt-size.ts';
import { type Price, productQuota, tokensQuota, withGroupRatio } from './quota.ts';

/** Ratio used for a model nobody priced, when self-use mode or the user's setting allows it (as in new-api). */
export const UNSET_MODEL_RATIO = 37.5;
const UNSET_PRICING = {
  modelRatio: UNSET_MODEL_RATIO,
  completionRatio: 1,
  cacheRatio: 1,
  cacheWriteRatio: 1,
  modelPrice: -1,
};

/** The price of a model for the caller's group; unpriced models are refused unless allowed. */
export function priceFor(state: RelayState, caller: Caller, model: string): Price & { unset: boolean } {
  const m = state.prices.model(model);
  if (m) return withGroupRatio(m, state.prices.groupRatio(caller.group));
  if (
    state.ctx.options.bool('SelfUseModeEnabled') ||
    caller.user.setting.accept_unset_model_ratio_model === true
  ) {
    return withGroupRatio(UNSET_PRICING, state.prices.groupRatio(caller.group), true);
  }
  throw new RelayError(
    403,
    `model ${model} has no price set; ask the administrator to set its ratio or price`,
    'invalid_request_error',
    'model_price_not_set',
    'model',
  );
}

const SIZE_FACTOR: Record<string, number> = {
  '256x256': 0.4,
  '512x512': 0.45,
  '1024x1024': 1,
  '1024x1792': 2,
  '1792x1024': 2,
};

/**
 * An image request's quota: per-image price (ModelPrice, else 0.0025 x ModelRatio) x size factor x quality
 * factor (dall-e-3 hd: 2, or 1.5 at the tall and wide sizes) x n x QuotaPerUnit x group ratio, rounded.
 */
export function imageQuota(
  price: Price,
  model: string,
  img: NonNullable<Inspected['images']>,
  quotaPerUnit: number,
): number {
  const size = SIZE_FACTOR[img.size] ?? 1;
  let quality = 1;
  if (model === 'dall-e-3' && img.quality === 'hd') quality = img.size === '1024x1024' ? 2 : 1.5;
  const perImage = price.modelPrice >= 0 ? [price.modelPrice] : [0.0025, price.modelRatio];
  return productQuota([...perImage, size, quality, img.n, quotaPerUnit, price.groupRatio]);
}

/**
 * The tokens a request is expected to use at most, before the call: the prompt estimate (characters for speech,
 * PreConsumedQuota for audio uploads) and the largest answer (max tokens, else PreConsumedQuota). The hold
 * prices them; the per-minute token limits count them until the usage is known.
 */
export function expectedTokens(
  mode: Mode,
  req: Inspected,
  preConsumed: number,
): { prompt: number; answer: number } {
  if (mode === 'speech') return { prompt: [...req.inputText].length, answer: 0 };
  const answer = mode === 'chat' || mode === 'completions' ? req.maxTokens || preConsumed : 0;
  const prompt = mode === 'transcriptions' || mode === 'translations' ? preConsumed : req.promptEstimate;
  return { prompt, answer };
}

/**
 * What to ask the ledger for before the call: admitted on the expected cost (the prompt estimate and the
 * answer's max tokens, else PreConsumedQuota), reserving the most it can cost (the prompt's bound and the
 * answer's max tokens, else ANSWER_TOKENS_BOUND). Both are priced with the charge's own formula and rounding,
 * so a request that uses exactly what was expected is charged exactly its need. Images are priced exactly.
 */
export function holdFor(
  mode: Mode,
  req: Inspected,
  price: Price,
  quotaPerUnit: number,
  preConsumed: number,
): HoldAsk {
  if (mode === 'images' && req.images) {
    const exact = imageQuota(price, req.model, req.images, quotaPerUnit);
    return { need: exact, amount: exact };
  }
  const { prompt, answer } = expectedTokens(mode, req, preConsumed);
  const need = tokensQuota(prompt, answer, price, quotaPerUnit);
  const chatLike = mode === 'chat' || mode === 'completions';
  const boundPrompt = Math.max(prompt, req.promptBound);
  const boundAnswer = chatLike ? req.maxTokens || Math.max(ANSWER_TOKENS_BOUND, answer) : answer;
  const amount = tokensQuota(boundPrompt, boundAnswer, price, quotaPerUnit);
  return { need, amount: Math.max(need, amount) };
}

/** logContent's texts by price: a handful of distinct prices in use, each text shared by every row it is on. */
const contents = new Map<string, string>();
const MAX_CONTENTS = 1_000;

/**
 * The log row's content text, for API readers and old consoles; the console writes its own from
 * the row's `other`. Ratios as configured (0.075 stays 0.075), so both read the same figure. One string per
 * price: a row waits for the ledger's next flush (a second), so a text built per request would outlive the young
 * generation and be copied into the old one, request after request.
 */
export function logContent(price: Price & { unset?: boolean }): string {
  const key = `${price.modelPrice} ${price.groupRatio} ${price.modelRatio} ${price.completionRatio} ${price.unset === true}`;
  let text = contents.get(key);
  if (text === undefined) {
    if (contents.size >= MAX_CONTENTS) contents.clear();
    text = contentOf(price);
    contents.set(key, text);
  }
  return text;
}

function contentOf(price: Price & { unset?: boolean }): string {
  const f = (n: number) => String(n);
  const base =
    price.modelPrice >= 0
      ? `模型价格 ${f(price.modelPrice)}，分组倍率 ${f(price.groupRatio)}`
      : `模型倍率 ${f(price.modelRatio)}，补全倍率 ${f(price.completionRatio)}，分组倍率 ${f(price.groupRatio)}`;
  return price.unset ? `${base}（模型未定价，按默认倍率计费）` : base;
}
