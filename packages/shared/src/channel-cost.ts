/**
 * What a channel's upstream charges, kept in the channel's setting JSON beside the type's own settings:
 * - `cost_ratio`: a multiple of the official price (the ModelRatio / ModelPrice tables), e.g. 0.6 for a reseller
 *   selling at 60% of the list price. Absent: 1.
 * - `cost_prices`: per-model prices in the units of the sale prices, which win over `cost_ratio` for the models
 *   they name: `{"gpt-4o": {"ratio": 1.25, "completion_ratio": 4, "cache_ratio": 0.5}, "suno_music": {"price": 0.1}}`.
 *   `ratio` is the model ratio; `completion_ratio`, `cache_ratio` and `cache_write_ratio` multiply it as
 *   CompletionRatio, CacheRatio and CreateCacheRatio do and default to the model's official ones; `price` is
 *   US$ per call, as in ModelPrice. A model is looked up by the name the channel calls upstream (after its model
 *   mapping), then by the name the client asked for.
 * Both are checked when a channel is saved (server and form alike), so a price that does not parse never
 * reaches a request.
 */
export const COST_RATIO_FIELDS = ['ratio', 'completion_ratio', 'cache_ratio', 'cache_write_ratio'] as const;
export type CostRatioField = (typeof COST_RATIO_FIELDS)[number];

export type ChannelModelCost = { [K in CostRatioField]?: number } & { price?: number };
export type ChannelCostPrices = Record<string, ChannelModelCost>;

/** Most models one channel may price; a longer list is a paste gone wrong. */
export const MAX_COST_MODELS = 2000;
const MAX_MODEL_NAME = 191;

/** Why a cost setting is refused: a code the console translates, with the model and field it concerns. */
export type CostProblem =
  | { code: 'ratio_not_number' }
  | { code: 'invalid_json' }
  | { code: 'not_object' }
  | { code: 'too_many'; max: number }
  | { code: 'bad_model_name'; model: string }
  | { code: 'entry_not_object'; model: string }
  | { code: 'unknown_field'; model: string; field: string }
  | { code: 'not_number'; model: string; field: string }
  | { code: 'price_and_ratio'; model: string }
  | { code: 'no_price'; model: string };

const isNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Why a `cost_ratio` value is refused; absent, null and empty are fine (the official price). */
export function costRatioProblem(v: unknown): CostProblem | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return isNonNegative(v) ? undefined : { code: 'ratio_not_number' };
}

/** Why a `cost_prices` value (already parsed from JSON) is refused; absent and null are fine. */
export function costPricesProblem(v: unknown): CostProblem | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return { code: 'not_object' };
  const entries = Object.entries(v);
  if (entries.length > MAX_COST_MODELS) return { code: 'too_many', max: MAX_COST_MODELS };
  for (const [model, entry] of entries) {
    if (!model.trim() || model !== model.trim() || model.length > MAX_MODEL_NAME || model === '__proto__')
      return { code: 'bad_model_name', model };
    if (!entry || typeof entry !== 'object' || Array.isArray(entry))
      return { code: 'entry_not_object', model };
    for (const [field, n] of Object.entries(entry)) {
      if (field !== 'price' && !(COST_RATIO_FIELDS as readonly string[]).includes(field))
        return { code: 'unknown_field', model, field };
      if (!isNonNegative(n)) return { code: 'not_number', model, field };
    }
    const fields = Object.keys(entry);
    if (fields.includes('price') && fields.length > 1) return { code: 'price_and_ratio', model };
    if (!fields.includes('price') && !fields.includes('ratio')) return { code: 'no_price', model };
  }
  return undefined;
}

/** The first problem of a channel's cost settings, naming the setting key it is in. */
export function channelCostProblem(
  setting: Record<string, unknown>,
): { key: 'cost_ratio' | 'cost_prices'; problem: CostProblem } | undefined {
  const ratio = costRatioProblem(setting.cost_ratio);
  if (ratio) return { key: 'cost_ratio', problem: ratio };
  const prices = costPricesProblem(setting.cost_prices);
  return prices ? { key: 'cost_prices', problem: prices } : undefined;
}

/** The cost prices typed as JSON text (the console's field): the parsed object, or why it is refused. */
export function parseCostPrices(text: string): { value?: ChannelCostPrices; problem?: CostProblem } {
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { problem: { code: 'invalid_json' } };
  }
  const problem = costPricesProblem(v);
  return problem ? { problem } : { value: v as ChannelCostPrices };
}

/** A problem in English, for API replies. */
export function costProblemMessage(p: CostProblem): string {
  switch (p.code) {
    case 'ratio_not_number':
      return 'must be a number of 0 or more (a multiple of the official price, e.g. 0.6)';
    case 'invalid_json':
      return 'is not valid JSON';
    case 'not_object':
      return 'must be an object of model name to price, e.g. {"gpt-4o": {"ratio": 1.25, "completion_ratio": 4}}';
    case 'too_many':
      return `may name at most ${p.max} models`;
    case 'bad_model_name':
      return `has an invalid model name ${JSON.stringify(p.model)} (not empty, no spaces around it, at most ${MAX_MODEL_NAME} characters)`;
    case 'entry_not_object':
      return `${p.model}: must be an object such as {"ratio": 1.25} or {"price": 0.02}`;
    case 'unknown_field':
      return `${p.model}: unknown field ${JSON.stringify(p.field)} (use ratio, completion_ratio, cache_ratio, cache_write_ratio or price)`;
    case 'not_number':
      return `${p.model}: ${p.field} must be a number of 0 or more`;
    case 'price_and_ratio':
      return `${p.model}: give either a per-call price or ratios, not both`;
    case 'no_price':
      return `${p.model}: needs a ratio (per token) or a price (per call)`;
  }
}
