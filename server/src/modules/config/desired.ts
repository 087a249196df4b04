import type { AppContext } from '../../context.ts';
import { joinKeys, splitKeys } from '../../relay/table-cache/channel-keys.ts';
import { checkKeyFormat } from '../channels/keys.ts';
import { channelCreateSchema } from '../channels/schema.ts';
import { checkOther, checkSetting, checkTargets } from '../channels/service.ts';
import { optionDef } from '../options/registry.ts';
import { normaliseOption } from '../options/store.ts';
import { CHANNEL_STATUS, type ChannelEntry, type SecretRef } from './document.ts';
import { canonicalJson, type ManagedRow } from './rows.ts';
import type { SecretResolver } from './secrets.ts';
import { ConfigRefused, type ConfigSource, type Problem } from './source.ts';

/** What the file asks for: option values as stored, channels by name (key undefined = keep the stored one). */
export interface Desired {
  options: Map<string, string>;
  /** undefined when the file has no `channels` list: channels are then left alone. */
  channels?: Map<string, Omit<ManagedRow, 'key'> & { key?: string }>;
  /** The line each channel starts on, for problems found against the database. */
  channelLines: Map<string, number>;
}

/** Resolves references and checks every value with the same rules as the console; all problems at once. */
export function desiredState(ctx: AppContext, source: ConfigSource, resolve: SecretResolver): Desired {
  const problems: Problem[] = [];
  const at = (path: PropertyKey[], message: string) =>
    problems.push({ line: source.lineOf(path), path: path.join('.'), message });
  const attempt = <T>(path: PropertyKey[], fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      at(path, (err as Error).message);
      return undefined;
    }
  };

  const options = new Map<string, string>();
  for (const [key, raw] of Object.entries(source.doc.options ?? {})) {
    if (raw === undefined) continue;
    const def = optionDef(key);
    const text = attempt(['options', key], () => {
      if (def?.secret) return resolve(raw as SecretRef);
      if (def?.type === 'json') return typeof raw === 'string' ? raw : JSON.stringify(raw);
      return String(raw);
    });
    if (text === undefined || (def?.secret && text.trim() === '')) continue;
    const value = attempt(['options', key], () => normaliseOption(key, text, def));
    if (value !== undefined) options.set(key, value);
  }

  let channels: Desired['channels'];
  const channelLines = new Map<string, number>();
  if (source.doc.channels) {
    const wanted: NonNullable<Desired['channels']> = new Map();
    channels = wanted;
    source.doc.channels.forEach((entry, i) => {
      const path = ['channels', i];
      if (channelLines.has(entry.name)) {
        at([...path, 'name'], `a second channel named "${entry.name}"`);
        return;
      }
      channelLines.set(entry.name, source.lineOf(path));
      const row = attempt(path, () => channelRow(ctx, entry, resolve));
      if (row) wanted.set(entry.name, row);
    });
  }
  if (problems.length) throw new ConfigRefused(problems);
  return { options, channels, channelLines };
}

/** One file channel as the row it asks for, checked by the channels module's schema and rules. */
function channelRow(ctx: AppContext, entry: ChannelEntry, resolve: SecretResolver) {
  const key = entry.key === undefined ? undefined : resolve(entry.key).trim();
  const parsed = channelCreateSchema.safeParse({
    type: entry.type,
    name: entry.name,
    key: key ?? '',
    base_url: entry.base_url ?? '',
    models: entry.models,
    groups: entry.groups ?? ['default'],
    priority: entry.priority ?? 0,
    weight: entry.weight ?? 0,
    tag: entry.tag ?? '',
    auto_ban: entry.auto_ban ?? true,
    model_mapping: entry.model_mapping ?? '',
    status_code_mapping: entry.status_code_mapping ?? '',
    setting: entry.setting ?? '',
    param_override: entry.param_override ?? '',
    other: entry.other ?? '',
    openai_organization: entry.openai_organization ?? '',
    test_model: entry.test_model ?? '',
    max_input_tokens: entry.max_input_tokens ?? 0,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.join('.') || 'channel'}: ${issue.message}`);
  }
  const c = parsed.data;
  if (c.models.length === 0) throw new Error('at least one model is required');
  checkOther(c.type, c.other ?? '');
  checkSetting(c.type, c.setting);
  checkTargets(ctx, c.base_url, c.setting);
  if (key) for (const k of splitKeys(c.type, key)) checkKeyFormat(c.type, k);
  const groups = c.groups ?? [];
  return {
    type: c.type,
    name: c.name,
    key: key ? joinKeys(c.type, splitKeys(c.type, key)) : undefined,
    base_url: c.base_url ?? '',
    models: c.models.join(','),
    group: (groups.length ? groups : ['default']).join(','),
    priority: c.priority ?? 0,
    weight: c.weight ?? 0,
    status: CHANNEL_STATUS[entry.status ?? 'enabled'],
    tag: c.tag ?? '',
    auto_ban: c.auto_ban ?? 1,
    model_mapping: canonicalJson(c.model_mapping),
    status_code_mapping: canonicalJson(c.status_code_mapping),
    setting: canonicalJson(c.setting),
    param_override: canonicalJson(c.param_override),
    other: c.other ?? '',
    openai_organization: c.openai_organization ?? '',
    test_model: c.test_model ?? '',
    max_input_tokens: c.max_input_tokens ?? 0,
  };
}
