import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { AppContext } from '../../src/context.ts';
import { relayState } from '../../src/relay/relay-state.ts';
import { channelRow, tokenRow, userRow } from './account-rows.ts';

/**
 * Rows for relay tests, written straight to the database (the relay reads them through its caches, as it
 * would after the console wrote them).
 */
export async function seedUser(
  ctx: AppContext,
  o: {
    quota: number;
    group?: string;
    role?: number;
    status?: number;
    setting?: object;
    username?: string;
    password?: string;
  },
) {
  const username = o.username ?? `u${randomBytes(4).toString('hex')}`;
  await ctx.db.db
    .insertInto('users')
    .values(
      userRow({
        username,
        password: o.password ? await bcrypt.hash(o.password, 4) : 'x',
        role: o.role ?? 1,
        status: o.status ?? 1,
        quota: o.quota,
        group: o.group ?? 'default',
        aff_code: randomBytes(4).toString('hex'),
        setting: JSON.stringify(o.setting ?? {}),
        created_at: Math.floor(Date.now() / 1000),
      }),
    )
    .execute();
  const { id } = await ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  return { id: Number(id), username };
}

export async function seedToken(
  ctx: AppContext,
  o: {
    userId: number;
    remain?: number;
    unlimited?: boolean;
    modelLimits?: string[];
    allowIps?: string;
    group?: string;
    status?: number;
    expiredTime?: number;
  },
) {
  const key = randomBytes(24).toString('hex');
  const name = `token-${key.slice(0, 6)}`;
  await ctx.db.db
    .insertInto('tokens')
    .values(
      tokenRow({
        user_id: o.userId,
        key,
        status: o.status ?? 1,
        name,
        created_time: Math.floor(Date.now() / 1000),
        expired_time: o.expiredTime ?? -1,
        remain_quota: o.remain ?? 0,
        unlimited_quota: o.unlimited ? 1 : 0,
        model_limits_enabled: o.modelLimits ? 1 : 0,
        model_limits: (o.modelLimits ?? []).join(','),
        allow_ips: o.allowIps ?? '',
        group: o.group ?? '',
      }),
    )
    .execute();
  const { id } = await ctx.db.db
    .selectFrom('tokens')
    .select('id')
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return { id: Number(id), key, name, apiKey: `sk-${key}` };
}

export async function seedChannel(
  ctx: AppContext,
  o: {
    baseUrl: string;
    key: string;
    models: string[];
    type?: number;
    group?: string;
    priority?: number;
    weight?: number;
    name?: string;
    modelMapping?: Record<string, string>;
    statusCodeMapping?: Record<string, string>;
    paramOverride?: Record<string, unknown>;
    autoBan?: boolean;
    other?: string;
    setting?: Record<string, unknown>;
  },
) {
  const name = o.name ?? `ch-${randomBytes(3).toString('hex')}`;
  await ctx.db.db
    .insertInto('channels')
    .values(
      channelRow({
        type: o.type ?? 1,
        key: o.key,
        name,
        weight: o.weight ?? 0,
        created_time: Math.floor(Date.now() / 1000),
        base_url: o.baseUrl,
        other: o.other ?? '',
        models: o.models.join(','),
        group: o.group ?? 'default',
        model_mapping: JSON.stringify(o.modelMapping ?? {}),
        status_code_mapping: JSON.stringify(o.statusCodeMapping ?? {}),
        priority: o.priority ?? 0,
        auto_ban: o.autoBan === false ? 0 : 1,
        other_info: '{}',
        setting: JSON.stringify(o.setting ?? {}),
        param_override: o.paramOverride ? JSON.stringify(o.paramOverride) : '',
      }),
    )
    .execute();
  const { id } = await ctx.db.db
    .selectFrom('channels')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  for (const g of (o.group ?? 'default').split(',')) {
    for (const m of o.models) {
      await ctx.db.db
        .insertInto('abilities')
        .values({
          group: g,
          model: m,
          channel_id: id,
          enabled: 1,
          priority: o.priority ?? 0,
          weight: o.weight ?? 0,
          tag: '',
        })
        .execute();
    }
  }
  await relayState(ctx).channels.reload();
  return { id: Number(id), name };
}

/** Waits until every settled charge is in the database. */
export async function flushLedger(ctx: AppContext) {
  await relayState(ctx).writer.flush();
}

/** A request's usage log rows, flushing and waiting up to 5 s for it to settle (a client may see an error first). */
export async function settledLogs(ctx: AppContext, requestId: string) {
  for (let i = 0; i < 50; i++) {
    await flushLedger(ctx);
    const rows = await ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('request_id', '=', requestId)
      .execute();
    if (rows.length) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}
