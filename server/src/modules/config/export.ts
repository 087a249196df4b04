import { Document } from 'yaml';
import type { Db } from '../../db/index.ts';
import { OPTIONS } from '../options/registry.ts';
import { CHANNEL_STATUS, type ChannelEntry, type ConfigDocument } from './document.ts';
import { managedRow } from './rows.ts';

/**
 * How channel keys are written: left out (`none`, an existing channel keeps its key on apply), in the file
 * (`plain`), or as `{secret: <channel name>}` references with the values returned apart for a secrets file.
 */
export type KeyMode = 'none' | 'plain' | 'secrets';

export interface Exported {
  yaml: string;
  /** With `secrets`: name to value, for the secrets file (never in the configuration file itself). */
  secrets: Record<string, string>;
}

const STATUS_NAME = Object.fromEntries(Object.entries(CHANNEL_STATUS).map(([k, v]) => [v, k])) as Record<
  number,
  ChannelEntry['status']
>;

const parsedOr = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/** Every option (secret ones only with `keys` other than none) and every channel, as one YAML document. */
export async function exportConfig(handle: Db, keys: KeyMode = 'none'): Promise<Exported> {
  const stored = new Map(
    (await handle.db.selectFrom('options').select(['key', 'value']).execute()).map((r) => [
      r.key,
      r.value ?? '',
    ]),
  );
  const secrets: Record<string, string> = {};
  const options: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(OPTIONS).sort(([a], [b]) => a.localeCompare(b))) {
    const value = stored.get(key) ?? def.default;
    if (def.secret) {
      if (keys === 'none' || value === '') continue;
      if (keys === 'secrets') {
        secrets[`option.${key}`] = value;
        options[key] = { secret: `option.${key}` };
      } else options[key] = value;
      continue;
    }
    if (def.type === 'bool') options[key] = value === 'true';
    else if (def.type === 'int' || def.type === 'float') options[key] = Number(value);
    else if (def.type === 'json') {
      const parsed = parsedOr(value);
      options[key] = typeof parsed === 'string' ? value : parsed;
    } else options[key] = value;
  }

  const channels: ChannelEntry[] = [];
  for (const row of await handle.db.selectFrom('channels').selectAll().orderBy('id').execute()) {
    const r = managedRow(row);
    const entry: ChannelEntry = { name: r.name, type: r.type, models: r.models.split(',').filter(Boolean) };
    if (keys === 'plain') entry.key = r.key;
    if (keys === 'secrets') {
      secrets[`channel.${r.name}`] = r.key;
      entry.key = { secret: `channel.${r.name}` };
    }
    if (r.base_url) entry.base_url = r.base_url;
    entry.groups = r.group.split(',').filter(Boolean);
    entry.priority = r.priority;
    entry.weight = r.weight;
    entry.status = STATUS_NAME[r.status] ?? 'enabled';
    if (r.tag) entry.tag = r.tag;
    entry.auto_ban = r.auto_ban === 1;
    for (const c of ['model_mapping', 'status_code_mapping', 'setting', 'param_override'] as const)
      if (r[c]) entry[c] = JSON.parse(r[c]) as Record<string, unknown>;
    for (const c of ['other', 'openai_organization', 'test_model'] as const) if (r[c]) entry[c] = r[c];
    if (r.max_input_tokens) entry.max_input_tokens = r.max_input_tokens;
    channels.push(entry);
  }

  const doc: ConfigDocument = { version: 1, options, channels };
  const yaml = new Document(doc);
  yaml.commentBefore =
    ' yaml-language-server: $schema=https://raw.githubusercontent.com/modelgate/modelgate/main/docs/config.schema.json\n' +
    ' ModelGate configuration: npm run config -- plan FILE, then apply FILE (README, Configuration as code)';
  return { yaml: yaml.toString({ lineWidth: 0 }), secrets };
}
