import { ChannelStatus } from '@modelgate/shared';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ChannelsTable } from '../../db/schema.ts';
import { type ChannelKey, channelKeys, type KeyMode } from './channel-keys.ts';

export interface ChannelEntry {
  id: number;
  type: number;
  name: string;
  /** The key of this attempt: a single-key channel's key, or the one chosen among many (route/failover.ts withKey). */
  key: string;
  /** Every key of the channel (one for most channels) with its status. */
  keys: ChannelKey[];
  /** How a multi-key channel picks its key: the setting `multi_key_mode`. */
  keyMode: KeyMode;
  /** Set on an attempt's copy of a multi-key channel: the position of the key it uses. */
  keyIndex?: number;
  baseUrl: string;
  /** Azure api-version and similar per-type extras. */
  other: string;
  organization: string;
  status: number;
  priority: number;
  weight: number;
  autoBan: boolean;
  models: string[];
  groups: string[];
  modelMapping: Record<string, string>;
  statusCodeMapping: Record<string, string>;
  paramOverride: Record<string, unknown> | null;
  setting: Record<string, unknown>;
  /** `setting.proxy`, trimmed: the proxy for this channel's calls, empty for a direct connection. */
  proxy: string;
  testModel: string;
}

/** One priority level for a (group, model): its channels and their cumulative draw weights. */
export interface Tier {
  priority: number;
  channels: ChannelEntry[];
}

const list = (s: string | null) =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

function obj<T>(raw: string | null, fallback: T): T {
  if (!raw?.trim()) return fallback;
  try {
    const v = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as T) : fallback;
  } catch {
    return fallback;
  }
}

/** A channels row as the relay uses it (lists split, JSON fields parsed, bad JSON treated as empty). */
export function toEntry(r: Selectable<ChannelsTable>): ChannelEntry {
  const setting = obj<Record<string, unknown>>(r.setting, {});
  const keys = channelKeys(r.type, r.key, r.key_status);
  return {
    id: r.id,
    type: r.type,
    name: r.name,
    key: (keys.find((k) => !k.state) ?? keys[0])?.key ?? '',
    keys,
    keyMode: setting.multi_key_mode === 'polling' ? 'polling' : 'random',
    baseUrl: (r.base_url ?? '').replace(/\/+$/, ''),
    other: r.other ?? '',
    organization: r.openai_organization ?? '',
    status: r.status,
    priority: Number(r.priority),
    weight: Number(r.weight),
    autoBan: r.auto_ban === 1,
    models: list(r.models),
    groups: list(r.group),
    modelMapping: obj(r.model_mapping, {}),
    statusCodeMapping: obj(r.status_code_mapping, {}),
    paramOverride: obj<Record<string, unknown> | null>(r.param_override, null),
    setting,
    proxy: typeof setting.proxy === 'string' ? setting.proxy.trim() : '',
    testModel: r.test_model ?? '',
  };
}

/**
 * Every channel in memory plus the routing index group -> model -> priority tiers (highest first).
 * Rebuilt from the database on `channels` and every SYNC_FREQUENCY seconds; an automatic disable updates the
 * index at once so the next request cannot pick the channel.
 */
export class ChannelCache {
  private byId = new Map<number, ChannelEntry>();
  private index = new Map<string, Map<string, Tier[]>>();
  /** `group\nmodel` pairs that more than one channel or key could serve, enabled or not. */
  private choices = new Set<string>();
  private timer: NodeJS.Timeout;
  private loadSeq = 0;
  ready: Promise<void>;
  /** Set by the first successful load (readiness waits for it). */
  loaded = false;

  constructor(private readonly ctx: AppContext) {
    this.ready = this.reload();
    ctx.bus.subscribe('channels', () => this.reload());
    this.timer = setInterval(() => void this.reload(), Math.max(1, ctx.config.syncFrequencySec) * 1000);
    this.timer.unref();
    ctx.onClose(() => clearInterval(this.timer));
  }

  async reload(): Promise<void> {
    const seq = ++this.loadSeq;
    const startedAt = performance.now();
    try {
      const rows = await this.ctx.db.db.selectFrom('channels').selectAll().execute();
      if (seq !== this.loadSeq) return;
      const next = new Map<number, ChannelEntry>();
      for (const r of rows) next.set(r.id, toEntry(r));
      this.byId = next;
      this.rebuild();
      this.loaded = true;
      this.ctx.metrics?.cacheReloaded('channels', performance.now() - startedAt, true);
    } catch (err) {
      this.ctx.log.error({ err }, 'channel cache reload failed');
      this.ctx.metrics?.cacheReloaded('channels', performance.now() - startedAt, false);
    }
  }

  private rebuild(): void {
    const index = new Map<string, Map<string, Tier[]>>();
    const seen = new Set<string>();
    const choices = new Set<string>();
    for (const ch of this.byId.values()) {
      for (const g of ch.groups)
        for (const m of ch.models) {
          const pair = `${g}\n${m}`;
          if (seen.has(pair) || ch.keys.length > 1) choices.add(pair);
          seen.add(pair);
        }
      if (ch.status !== ChannelStatus.Enabled) continue;
      for (const g of ch.groups) {
        const models = index.get(g) ?? new Map<string, Tier[]>();
        index.set(g, models);
        for (const m of ch.models) {
          const tiers = models.get(m) ?? [];
          models.set(m, tiers);
          const tier = tiers.find((t) => t.priority === ch.priority);
          if (tier) tier.channels.push(ch);
          else tiers.push({ priority: ch.priority, channels: [ch] });
        }
      }
    }
    for (const models of index.values())
      for (const tiers of models.values()) tiers.sort((a, b) => b.priority - a.priority);
    this.index = index;
    this.choices = choices;
  }

  get(id: number): ChannelEntry | undefined {
    return this.byId.get(id);
  }

  tiers(group: string, model: string): Tier[] {
    return this.index.get(group)?.get(model) ?? [];
  }

  /**
   * Whether a request for the model in the group could go to more than one channel or key, counting the ones
   * disabled now (a conversation placed while they were out must be remembered for when they come back).
   */
  offersChoice(group: string, model: string): boolean {
    return this.choices.has(`${group}\n${model}`);
  }

  /** Whether any channel, enabled or not, in any group lists the model. */
  servedAnywhere(model: string): boolean {
    for (const ch of this.byId.values()) if (ch.models.includes(model)) return true;
    return false;
  }

  /** Distinct models that have at least one enabled channel in the group, sorted. */
  models(group: string): string[] {
    return [...(this.index.get(group)?.keys() ?? [])].sort();
  }

  /** Takes a channel out of routing immediately (the database write is the channels module's job). */
  markDisabled(id: number, status: number = ChannelStatus.AutoDisabled): void {
    const ch = this.byId.get(id);
    if (!ch || ch.status === status) return;
    ch.status = status;
    this.rebuild();
  }
}
