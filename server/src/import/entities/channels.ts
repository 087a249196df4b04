import { ChannelStatus } from '@modelgate/shared';
import type { Insertable } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { isProxyUrl } from '../../infra/proxy.ts';
import { adminUrlPolicy, literalRefusal } from '../../infra/ssrf.ts';
import { abilityRows } from '../../modules/channels/abilities.ts';
import { checkKeyFormat } from '../../modules/channels/keys.ts';
import { channelTargetRefusal } from '../../modules/channels/targets.ts';
import { joinKeys, type KeyState, keyFingerprint, splitKeys } from '../../relay/table-cache/channel-keys.ts';
import { mapChannelType } from '../channel-types.ts';
import { bumpSequence, commitRows, errorText, type ImportJob, inSavepoint, sourceBatches } from '../job.ts';
import { exactInt, fit, int, jsonObject, num, str } from '../values.ts';

type ChannelInsert = Insertable<Database['channels']> & { id: number };

/**
 * Channels keep their id (abilities and logs refer to it), key(s), models, groups, mapping, priority, weight,
 * tag and settings. one-api's credentials in `config` (AWS keys, Vertex service account, Cloudflare account,
 * Azure API version) move to where this gateway reads them; new-api's multi-key state (`channel_info`) moves
 * to the per-key status by fingerprint. The routing index (abilities) is written with each channel in the same
 * transaction, from the channel's own models and groups.
 */
export async function importChannels(job: ImportJob): Promise<void> {
  const e = job.report.entity('channels');
  const db = job.db;
  for await (const batch of sourceBatches(job, 'channels')) {
    e.read += batch.length;
    const planned: ChannelInsert[] = [];
    for (const r of batch) {
      const p = plan(job, r);
      if (typeof p === 'string') e.skip(str(r.id), p);
      else planned.push(p);
    }
    const fresh: ChannelInsert[] = [];
    if (planned.length) {
      const existing = await db
        .selectFrom('channels')
        .select(['id', 'name', 'type', 'models', 'group', 'status', 'priority', 'weight', 'tag'])
        .where(
          'id',
          'in',
          planned.map((p) => p.id),
        )
        .execute();
      for (const p of planned) {
        const here = existing.find((x) => Number(x.id) === p.id);
        if (!here) fresh.push(p);
        else if (here.name === p.name && Number(here.type) === p.type) {
          e.unchanged++;
          remember(job, { ...here, id: p.id }, false);
        } else e.skip(p.id, `id ${p.id} belongs to another channel here ("${here.name}")`);
      }
    }
    if (job.dryRun) {
      e.imported += fresh.length;
      for (const p of fresh) remember(job, p, true);
      continue;
    }
    const written = await commitRows<ChannelInsert, typeof db>(
      fresh,
      (fn) => inSavepoint(job, fn),
      async (trx, row) => {
        await trx.insertInto('channels').values(row).execute();
        const abilities = abilityRows(source(row));
        for (let i = 0; i < abilities.length; i += 500)
          await trx
            .insertInto('abilities')
            .values(abilities.slice(i, i + 500))
            .execute();
      },
      (row, err) => e.skip(row.id, `could not be written: ${errorText(err)}`),
    );
    e.imported += written.length;
    for (const p of written) remember(job, p, true);
  }
  if (!job.dryRun && e.imported) {
    await bumpSequence(job, db, 'channels');
    job.afterCommit.push(() => job.ctx.bus.publish('channels'));
  }
}

type AbilityFields = Pick<ChannelInsert, 'models' | 'group' | 'status' | 'priority' | 'weight' | 'tag'> & {
  id: number;
};
const source = (c: AbilityFields) => ({
  id: c.id,
  models: c.models ?? '',
  group: c.group ?? '',
  status: Number(c.status),
  priority: Number(c.priority ?? 0),
  weight: Number(c.weight ?? 0),
  tag: c.tag ?? '',
});

function remember(job: ImportJob, c: AbilityFields, fresh: boolean): void {
  job.channels.set(c.id, {
    pairs: new Set(abilityRows(source(c)).map((a) => `${a.group}\n${a.model}`)),
    fresh,
  });
}

function plan(job: ImportJob, r: Record<string, unknown>): ChannelInsert | string {
  const e = job.report.entity('channels');
  const id = exactInt(r.id);
  if (!id || id <= 0) return 'no valid id';
  const mapped = mapChannelType(job.flavor, int(r.type));
  if ('unsupported' in mapped)
    return `channel type ${int(r.type)} (${mapped.unsupported}) has no equivalent here`;
  const type = mapped.type;
  const config = job.flavor === 'one-api' ? (jsonObject(r.config) ?? {}) : {};
  const setting = jsonObject(r.setting) ?? {};
  let key = str(r.key).trim();
  let other = str(r.other);
  // one-api keeps several credentials in `config`; here they live in the key, `other` or the setting.
  if (job.flavor === 'one-api') {
    if (type === 33 && !key && config.ak)
      key = [config.ak, config.sk, config.region].map((x) => str(x)).join('|');
    if (type === 41 && config.vertex_ai_adc) {
      key = str(config.vertex_ai_adc).trim();
      other = str(config.region) || other;
    }
    if ((type === 3 || type === 18) && config.api_version) other = str(config.api_version);
    if (type === 39 && config.user_id) setting.account_id = str(config.user_id);
    if (type === 49 && config.user_id) setting.user = str(config.user_id);
    if (str(r.system_prompt).trim())
      e.note('one-api system prompt has no channel equivalent here and was dropped');
    if (config.plugin || config.library_id)
      e.note('one-api plugin / library id has no equivalent here and was dropped');
  }
  if (!key) return 'no key';
  const info = jsonObject(r.channel_info);
  const keys = splitKeys(type, key);
  if (!info?.is_multi_key && keys.length > 1 && type !== 41)
    e.note('key field held several lines: it is a multi-key channel here (one key per line)');
  try {
    for (const k of keys) checkKeyFormat(type, k);
  } catch (err) {
    return `key does not fit the channel type: ${(err as Error).message}`;
  }
  let keyStatus: string | null = null;
  if (info?.is_multi_key) {
    if (info.multi_key_mode === 'polling' || info.multi_key_mode === 'random')
      setting.multi_key_mode = info.multi_key_mode;
    keyStatus = keyStates(keys, info);
  }
  let baseUrl = str(r.base_url).trim();
  if (!baseUrl && mapped.baseUrl) baseUrl = mapped.baseUrl;
  if (mapped.type === 8 && mapped.baseUrl && int(r.type) !== 8)
    e.note(`became a Custom channel at ${baseUrl}`);
  if (baseUrl.length > 512) return 'base URL longer than 512 characters';
  // Every URL goes through the console's checks: http(s) base URLs, proxies the relay can use, and the SSRF
  // guard's refusal of link-local and metadata addresses for both.
  if (baseUrl && !/^https?:\/\/[^\s/]+/i.test(baseUrl))
    return 'base URL refused: not an http:// or https:// URL';
  const proxy = setting.proxy;
  if (proxy !== undefined && proxy !== '' && (typeof proxy !== 'string' || !isProxyUrl(proxy.trim())))
    return 'setting.proxy refused: not an http://, https:// or socks5:// URL';
  const policy = adminUrlPolicy(job.ctx.options);
  const baseRefused = baseUrl ? literalRefusal(baseUrl, policy) : undefined;
  if (baseRefused) return `base URL refused: ${baseRefused}`;
  const proxyRefused = channelTargetRefusal(policy, '', JSON.stringify(setting));
  if (proxyRefused) return `setting.proxy refused: ${proxyRefused}`;
  const dropped = ['header_override', 'settings'].filter(
    (c) => str(r[c]).trim() && str(r[c]).trim() !== '{}',
  );
  for (const c of dropped) e.note(`new-api ${c} has no equivalent here and was dropped`);
  let status = int(r.status, ChannelStatus.Enabled);
  if (status < ChannelStatus.Unknown || status > ChannelStatus.AutoDisabled)
    status = ChannelStatus.ManuallyDisabled;
  return {
    id,
    type,
    key: joinKeys(type, keys),
    openai_organization: str(r.openai_organization),
    test_model: fit(r.test_model, 255),
    status,
    name: fit(r.name, 191) || `channel ${id}`,
    weight: int(r.weight),
    created_time: int(r.created_time),
    test_time: int(r.test_time),
    response_time: int(r.response_time),
    base_url: baseUrl,
    other,
    balance: num(r.balance),
    balance_updated_time: int(r.balance_updated_time),
    models: str(r.models),
    group: fit(r.group, 255).trim() || 'default',
    used_quota: int(r.used_quota),
    model_mapping: str(r.model_mapping),
    status_code_mapping: str(r.status_code_mapping),
    priority: int(r.priority),
    auto_ban: r.auto_ban === null || r.auto_ban === undefined ? 1 : int(r.auto_ban, 1),
    other_info: str(r.other_info),
    tag: fit(r.tag, 191),
    setting: Object.keys(setting).length ? JSON.stringify(setting) : '',
    param_override: str(r.param_override),
    max_input_tokens: 0,
    key_status: keyStatus,
  };
}

/** new-api's per-index key statuses (2 manual, 3 automatic) as this gateway's per-fingerprint ones. */
function keyStates(keys: string[], info: Record<string, unknown>): string | null {
  const list = (info.multi_key_status_list ?? {}) as Record<string, unknown>;
  const reasons = (info.multi_key_disabled_reason ?? {}) as Record<string, unknown>;
  const times = (info.multi_key_disabled_time ?? {}) as Record<string, unknown>;
  const out: Record<string, KeyState> = {};
  for (const [idx, s] of Object.entries(list)) {
    const status = Number(s);
    const k = keys[Number(idx)];
    if (!k || (status !== ChannelStatus.ManuallyDisabled && status !== ChannelStatus.AutoDisabled)) continue;
    out[keyFingerprint(k)] = { status, reason: str(reasons[idx]), time: int(times[idx]) };
  }
  return Object.keys(out).length ? JSON.stringify(out) : null;
}
