/**
 * Settings a channel type reads from its setting JSON (region, search, profiles...): the console shows them as
 * form fields, and the server checks them when a channel is saved.
 */
export interface ChannelSettingField {
  name: string;
  kind: 'boolean' | 'string' | 'number';
  /** For strings: the pattern a non-empty value must match. */
  pattern?: string;
  /** For numbers: the range. */
  min?: number;
  max?: number;
  /** Booleans that may also be a string matching `pattern` (AWS cross-region: true or a profile prefix). */
  orString?: boolean;
  /** Checked on save but not shown in the form (another form field holds the same value). */
  hidden?: boolean;
}

const REGION = '^[a-z]{2,}(-[a-z0-9]+)+$';

export const CHANNEL_SETTING_FIELDS: Record<number, ChannelSettingField[]> = {
  17: [
    { name: 'enable_search', kind: 'boolean' },
    { name: 'workspace', kind: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' },
    { name: 'poll_interval_ms', kind: 'number', min: 50, max: 10_000 },
  ],
  // The Spark version and the Cloudflare account id are the form's `other` field; the settings
  // `api_version` and `account_id` override it, are checked here and not shown.
  18: [
    { name: 'domain', kind: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
    { name: 'api_version', kind: 'string', pattern: '^(v\\d+\\.\\d+|pro-128k|max-32k)$', hidden: true },
  ],
  23: [{ name: 'region', kind: 'string', pattern: REGION }],
  34: [
    {
      name: 'input_type',
      kind: 'string',
      pattern: '^(search_document|search_query|classification|clustering)$',
    },
  ],
  37: [{ name: 'user', kind: 'string', pattern: '^.{1,255}$' }],
  49: [{ name: 'user', kind: 'string', pattern: '^.{1,255}$' }],
  33: [{ name: 'aws_cross_region', kind: 'boolean', orString: true, pattern: '^[a-z]{2,6}(-[a-z]{2,6})?$' }],
  39: [{ name: 'account_id', kind: 'string', pattern: '^[0-9a-fA-F]{32}$', hidden: true }],
};

/** A type's setting fields (none for most types). */
export const channelSettingFields = (type: number): ChannelSettingField[] =>
  CHANNEL_SETTING_FIELDS[type] ?? [];

/** Why a setting value is refused for a field, or undefined when it is fine (absent and empty values are fine). */
export function settingFieldError(f: ChannelSettingField, v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (f.kind === 'boolean') {
    if (typeof v === 'boolean') return undefined;
    if (f.orString && typeof v === 'string' && new RegExp(f.pattern ?? '.').test(v)) return undefined;
    return f.orString
      ? `${f.name} must be true, false or a name like "us"`
      : `${f.name} must be true or false`;
  }
  if (f.kind === 'number') {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${f.name} must be a number`;
    if ((f.min !== undefined && v < f.min) || (f.max !== undefined && v > f.max))
      return `${f.name} must be between ${f.min} and ${f.max}`;
    return undefined;
  }
  if (typeof v !== 'string') return `${f.name} must be text`;
  if (f.pattern && !new RegExp(f.pattern).test(v.trim())) return `${f.name} "${v}" is not a valid value`;
  return undefined;
}
