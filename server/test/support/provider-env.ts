import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { type ConsoleClient, loginAs } from './console-client.ts';
import { flushLedger, seedToken, seedUser } from './relay-seed.ts';
import { startServer, type TestServer } from './server.ts';

/** Prices a provider test sets: model ratio and completion ratio per model, one group ratio for `default`. */
export interface Prices {
  models: Record<string, { ratio: number; completion: number }>;
  group: number;
  /** Cache-read and cache-write ratios of every model above (recorded answers carry cache tokens). */
  cache?: { read: number; write: number };
  /** A fixed price per call, for the models billed per image. */
  perCall?: Record<string, number>;
}

/**
 * A gateway for one provider's tests: an admin console client (channels are made through /api/channel/, so
 * key checks run), a user with a token, its official clients, and readers for balances and log rows.
 */
export async function providerEnv(prices: Prices) {
  const START = 50_000_000;
  const server: TestServer = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
  const { ctx } = server;
  const admin: ConsoleClient = await loginAs(server, { username: 'admin', role: Role.Admin });
  const entries = Object.entries(prices.models);
  await ctx.options.set(
    'ModelRatio',
    JSON.stringify(Object.fromEntries(entries.map(([m, p]) => [m, p.ratio]))),
  );
  await ctx.options.set(
    'CompletionRatio',
    JSON.stringify(Object.fromEntries(entries.map(([m, p]) => [m, p.completion]))),
  );
  await ctx.options.set('GroupRatio', JSON.stringify({ default: prices.group }));
  const everyModel = (n: number) => JSON.stringify(Object.fromEntries(entries.map(([m]) => [m, n])));
  if (prices.cache) {
    await ctx.options.set('CacheRatio', everyModel(prices.cache.read));
    await ctx.options.set('CreateCacheRatio', everyModel(prices.cache.write));
  }
  if (prices.perCall) await ctx.options.set('ModelPrice', JSON.stringify(prices.perCall));
  const user = await seedUser(ctx, { quota: START });
  const token = await seedToken(ctx, { userId: user.id, remain: START });

  return {
    server,
    admin,
    apiKey: token.apiKey,
    openai: () => new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }),
    anthropic: () => new Anthropic({ apiKey: token.apiKey, baseURL: server.url, maxRetries: 0 }),

    /** Creates a channel as the admin; returns its id (the console's answer when it refused). */
    async channel(body: Record<string, unknown>): Promise<number> {
      const r = await admin.post('/api/channel/', { group: 'default', ...body });
      if (!r.success) throw new Error(`channel refused: ${r.status} ${r.message}`);
      return r.data.ids[0];
    },

    /** The quota the gateway's formula gives a text answer (no cache tokens) at these prices. */
    quota(model: string, prompt: number, completion: number): number {
      const p = prices.models[model];
      const q = Math.round((prompt + completion * p.completion) * p.ratio * prices.group);
      return q < 1 ? 1 : q;
    },

    async balances() {
      await flushLedger(ctx);
      const u = await ctx.db.db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      const t = await ctx.db.db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', token.id)
        .executeTakeFirstOrThrow();
      return {
        user: Number(u.quota),
        token: Number(t.remain_quota),
        userUsed: Number(u.used_quota),
        tokenUsed: Number(t.used_quota),
      };
    },

    async lastLogId(): Promise<number> {
      await flushLedger(ctx);
      const row = await ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** Consume-log rows written after a log id. */
    async logsAfter(id: number) {
      await flushLedger(ctx);
      return ctx.logDb.db.selectFrom('logs').selectAll().where('id', '>', id).where('type', '=', 2).execute();
    },
  };
}

export type ProviderEnv = Awaited<ReturnType<typeof providerEnv>>;

/** Runs a call and what it charged: the answer, the one log row it wrote, and the user's and token's spend. */
export async function charged<T>(env: ProviderEnv, call: () => Promise<T>) {
  const before = await env.balances();
  const logId = await env.lastLogId();
  const result = await call();
  const rows = await env.logsAfter(logId);
  const after = await env.balances();
  if (rows.length !== 1) throw new Error(`expected one log row, got ${rows.length}`);
  return {
    result,
    log: rows[0],
    user: before.user - after.user,
    token: before.token - after.token,
    userUsed: after.userUsed - before.userUsed,
    tokenUsed: after.tokenUsed - before.tokenUsed,
  };
}

/** The error a client call threw (status and message), or null when it succeeded. */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { status?: number; message?: string; error?: unknown }) => e,
  );
