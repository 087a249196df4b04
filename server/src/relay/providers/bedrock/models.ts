/** Anthropic's model names (dated ids and their aliases) as Bedrock's base model ids. */
const BEDROCK_IDS: Record<string, string> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-opus-latest': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-sonnet-latest': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-5-haiku-latest': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-3-7-sonnet-latest': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-sonnet-4-0': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-0': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-opus-4-1': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-sonnet-4-5': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-haiku-4-5': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-opus-4-5': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-opus-4-6': 'anthropic.claude-opus-4-6-v1',
  'claude-sonnet-4-6': 'anthropic.claude-sonnet-4-6',
};

/** Inference-profile prefixes a channel may name in `aws_cross_region` (besides `true`: from the region). */
const PROFILE_PREFIX = /^[a-z]{2,6}(-[a-z]{2,6})?$/;

/**
 * The setting `aws_cross_region`: `true` derives the inference-profile prefix from the region (us-gov-*,
 * us-*, eu-*, ap-* -> us-gov, us, eu, apac); a string names the prefix (global, jp, au...); anything else is off.
 */
export function crossRegionPrefix(setting: unknown, region: string): string {
  if (typeof setting === 'string') {
    const s = setting.trim().toLowerCase();
    if (s === 'true') return fromRegion(region);
    return s !== 'false' && PROFILE_PREFIX.test(s) ? s : '';
  }
  return setting === true ? fromRegion(region) : '';
}

function fromRegion(region: string): string {
  if (region.startsWith('us-gov-')) return 'us-gov';
  const area = region.split('-')[0];
  return area === 'us' || area === 'eu' ? area : area === 'ap' ? 'apac' : '';
}

/**
 * The Bedrock model id for a (mapped) model name. An ARN, or an id that names its provider (`anthropic.`,
 * `us.anthropic.`...), goes as it is; a known Anthropic name is looked up; another `claude-*` name is taken
 * to be Bedrock's id without the provider. `prefix` is the cross-region inference profile, for base ids.
 */
export function bedrockModelId(model: string, prefix: string): string {
  if (model.startsWith('arn:')) return model;
  const id = BEDROCK_IDS[model] ?? (model.startsWith('claude-') ? `anthropic.${model}` : model);
  return prefix && id.startsWith('anthropic.') ? `${prefix}.${id}` : id;
}
