import { type ChannelSettingField, channelSettingFields } from '@modelgate/shared';
import { type CostFormValues, costFormValues, costSettingOf } from '../cost/CostFields.tsx';
import type { Channel, ChannelInput } from './api.ts';
import { splitList } from './rows.ts';

/** The channel drawer's form: its values, how a channel fills them, and the request body they make. */
export interface FormValues extends CostFormValues {
  type: number;
  name: string;
  base_url: string;
  key: string;
  /** Create only: one channel, one channel per key (batch), or one channel holding every key. */
  keyMode: 'single' | 'batch' | 'multi_key';
  /** Multi-key channels: how a key is chosen (kept in the setting JSON). */
  multiKeyMode: 'random' | 'polling';
  /** The type's own setting fields (kept in the setting JSON). */
  providerSetting: Record<string, unknown>;
  other: string;
  openai_organization: string;
  groups: string[];
  models: string[];
  model_mapping: string;
  status_code_mapping: string;
  setting: string;
  param_override: string;
  tag: string;
  priority: number;
  weight: number;
  test_model: string;
  auto_ban: boolean;
}

/** A new channel's defaults: type 1, group default, auto-ban on. */
export const DEFAULTS: FormValues = {
  type: 1,
  name: '',
  base_url: '',
  key: '',
  keyMode: 'single',
  multiKeyMode: 'random',
  providerSetting: {},
  other: '',
  openai_organization: '',
  groups: ['default'],
  models: [],
  model_mapping: '',
  status_code_mapping: '',
  setting: '',
  param_override: '',
  tag: '',
  priority: 0,
  weight: 0,
  test_model: '',
  auto_ban: true,
};

export const fromChannel = (c: Channel): FormValues => ({
  ...DEFAULTS,
  type: c.type,
  name: c.name,
  base_url: c.base_url,
  other: c.other,
  openai_organization: c.openai_organization,
  groups: splitList(c.group),
  models: splitList(c.models),
  model_mapping: c.model_mapping,
  status_code_mapping: c.status_code_mapping,
  setting: c.setting,
  multiKeyMode: settingOf(c.setting).multi_key_mode === 'polling' ? 'polling' : 'random',
  providerSetting: Object.fromEntries(
    channelSettingFields(c.type).map((f) => [f.name, toForm(f, settingOf(c.setting)[f.name])]),
  ),
  ...costFormValues(settingOf(c.setting)),
  param_override: c.param_override,
  tag: c.tag,
  priority: c.priority,
  weight: c.weight,
  test_model: c.test_model,
  auto_ban: c.auto_ban === 1,
});

function settingOf(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/**
 * The setting JSON with form-managed fields merged in: a field left empty (or off, or at its default) is
 * removed, so the JSON holds only what was chosen; other keys typed in the JSON field stay.
 */
function mergeSetting(setting: string, fields: Record<string, unknown>): string {
  const s = settingOf(setting);
  let changed = false;
  for (const [name, value] of Object.entries(fields)) {
    const empty = value === undefined || value === null || value === '' || value === false;
    if (empty ? !(name in s) : s[name] === value) continue;
    if (empty) delete s[name];
    else s[name] = value;
    changed = true;
  }
  if (!changed) return setting;
  return Object.keys(s).length ? JSON.stringify(s, null, 2) : '';
}

/** A type's setting field as the form holds it (AWS cross-region's `true` is the choice "auto"). */
const toForm = (f: ChannelSettingField, v: unknown) => (f.orString && v === true ? 'auto' : v);
const fromForm = (f: ChannelSettingField, v: unknown) => (f.orString && v === 'auto' ? true : v);

/** The create or update body the form's values make (names and JSON fields trimmed). */
export function toInput(v: FormValues, o: { editing: boolean; multi: boolean }): ChannelInput {
  return {
    type: v.type,
    name: (v.name ?? '').trim(),
    key: (v.key ?? '').trim(),
    base_url: (v.base_url ?? '').trim().replace(/\/+$/, ''),
    other: v.other ?? '',
    openai_organization: v.openai_organization ?? '',
    group: (v.groups?.length ? v.groups : ['default']).join(','),
    models: v.models.join(','),
    model_mapping: (v.model_mapping ?? '').trim(),
    status_code_mapping: (v.status_code_mapping ?? '').trim(),
    setting: mergeSetting(v.setting ?? '', {
      ...(o.multi ? { multi_key_mode: v.multiKeyMode === 'polling' ? 'polling' : undefined } : {}),
      ...Object.fromEntries(
        channelSettingFields(v.type).map((f) => [f.name, fromForm(f, v.providerSetting?.[f.name])]),
      ),
      ...costSettingOf(v),
    }).trim(),
    param_override: (v.param_override ?? '').trim(),
    tag: (v.tag ?? '').trim(),
    priority: v.priority ?? 0,
    weight: v.weight ?? 0,
    test_model: (v.test_model ?? '').trim(),
    auto_ban: v.auto_ban ? 1 : 0,
    ...(o.editing ? {} : { mode: v.keyMode ?? 'single' }),
  };
}
