import { ChannelStatus, Role } from '@modelgate/shared';
import { afterAll, beforeAll, expect } from 'vitest';
import { relayState } from '../../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './console-client.ts';
import type { TestDatabase } from './databases.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './relay-seed.ts';
import { startServer, type TestServer } from './server.ts';

/** The balance every test account starts with. */
export const START = 1_000_000;

/** A mock task upstream (Midjourney proxy, Suno API) as the task relay tests start and stop it. */
export interface TaskUpstream {
  url: string;
  close(): Promise<void>;
}

/** A task platform as its tests set it up. */
export interface TaskPlatformSetup<U extends TaskUpstream> {
  upstream(): Promise<U>;
  /** The channel every test draws on by default. */
  channel: { type: number; key: string; models: string[] };
  /** The root user's name (the console checks log in as it). */
  root: string;
}

export interface TaskRelayOptions<U extends TaskUpstream> extends TaskPlatformSetup<U> {
  engine: TestDatabase;
}

/**
 * A gateway on `engine` with one channel of a task platform over a mock upstream, for one describe block: the
 * fields are set in its beforeAll. The task loop is driven by the tests (`poll`) so every step is deterministic.
 */
export class TaskRelay<U extends TaskUpstream> {
  server!: TestServer;
  upstream!: U;
  channelId!: number;
  admin!: ConsoleClient & { userId: number };

  constructor(readonly opts: TaskRelayOptions<U>) {
    beforeAll(async () => {
      this.upstream = await opts.upstream();
      this.server = await startServer({ db: opts.engine, env: { TASK_POLL_INTERVAL: '0' } });
      this.admin = await loginAs(this.server, { username: opts.root, role: Role.Root });
      ({ id: this.channelId } = await seedChannel(this.server.ctx, {
        ...opts.channel,
        baseUrl: this.upstream.url,
      }));
    });
    afterAll(async () => {
      await this.server?.close();
      await this.upstream?.close();
    });
  }

  get ctx() {
    return this.server.ctx;
  }

  get state() {
    return relayState(this.server.ctx);
  }

  async account(opts: { quota?: number; remain?: number } = {}) {
    const user = await seedUser(this.ctx, { quota: opts.quota ?? START });
    const token = await seedToken(this.ctx, { userId: user.id, remain: opts.remain ?? START });
    return { user, token };
  }

  /** A call to the gateway with the key as a Bearer token: its status and JSON body (null when empty). */
  async call(method: string, path: string, apiKey: string, body?: unknown, headers = {}) {
    const res = await fetch(`${this.server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** A user's and a token's balances and the user's consume log rows, once the ledger has written them. */
  async books(userId: number, tokenId: number) {
    await flushLedger(this.ctx);
    const { db } = this.ctx.db;
    const user = await db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const token = await db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    const logs = await this.ctx.logDb.db
      .selectFrom('logs')
      .select(['quota', 'model_name', 'content', 'channel_id', 'token_id'])
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id', 'asc')
      .execute();
    return {
      quota: Number(user.quota),
      used: Number(user.used_quota),
      remain: Number(token.remain_quota),
      tokenUsed: Number(token.used_quota),
      logs: logs.map((l) => ({
        ...l,
        quota: Number(l.quota),
        channel_id: Number(l.channel_id),
        token_id: Number(l.token_id),
      })),
      logSum: logs.reduce((s, l) => s + Number(l.quota), 0),
    };
  }

  /** Checks one charge of `quota` for `model` on the default channel, its log row naming `content`. */
  async expectChargedOnce(
    userId: number,
    token: { id: number },
    charge: { quota: number; model: string; content: string },
  ) {
    const b = await this.books(userId, token.id);
    expect(b.quota).toBe(START - charge.quota);
    expect(b.remain).toBe(START - charge.quota);
    expect(b.used).toBe(charge.quota);
    expect(b.logs).toEqual([
      expect.objectContaining({
        quota: charge.quota,
        model_name: charge.model,
        channel_id: this.channelId,
        token_id: token.id,
      }),
    ]);
    expect(b.logs[0].content).toContain(charge.content);
  }

  /** Runs 20 concurrent final updates of a task charged `quota`: exactly one wins and refunds it. */
  async expectOneRefundOf20(
    userId: number,
    tokenId: number,
    quota: number,
    update: (i: number) => Promise<boolean>,
  ) {
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => update(i)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const b = await this.books(userId, tokenId);
    expect(b.logs.map((l) => l.quota)).toEqual([quota, -quota]);
    expect(b.quota).toBe(START);
    expect(b.remain).toBe(START);
  }

  /** Checks that a user and their token have every quota back, with the charge and its refund in the log. */
  async expectRefunded(userId: number, tokenId: number) {
    const b = await this.books(userId, tokenId);
    expect(b.quota).toBe(START);
    expect(b.remain).toBe(START);
    expect(b.used).toBe(0);
    expect(b.tokenUsed).toBe(0);
    expect(b.used).toBe(b.logSum);
    expect(this.state.users.peekBalance(userId)?.available).toBe(START);
    return b;
  }

  /** Another channel of the platform (tried first with priority 10), removed again after `run`. */
  async withChannel(o: { key: string; baseUrl?: string }, run: (id: number) => Promise<void>) {
    const { id } = await seedChannel(this.ctx, {
      ...this.opts.channel,
      baseUrl: o.baseUrl ?? this.upstream.url,
      key: o.key,
      priority: 10,
    });
    try {
      await run(id);
    } finally {
      await this.ctx.options.set('RetryTimes', '0');
      await this.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
      await this.ctx.db.db.deleteFrom('channels').where('id', '=', id).execute();
      await this.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', id).execute();
      await this.state.channels.reload();
    }
  }

  /** Waits until the channel is disabled by the relay, then checks no route to the model leads to it. */
  async expectAutoDisabled(channelId: number, model: string) {
    await expect
      .poll(async () => {
        const row = await this.ctx.db.db
          .selectFrom('channels')
          .select('status')
          .where('id', '=', channelId)
          .executeTakeFirst();
        return row?.status;
      })
      .toBe(ChannelStatus.AutoDisabled);
    expect(
      this.state.channels.tiers('default', model).flatMap((t) => t.channels.map((c) => c.id)),
    ).not.toContain(channelId);
  }

  /**
   * Two console users for the task log checks, named after the engine: an owner with START quota and a token,
   * and another user.
   */
  async logUsers(prefix: string) {
    const owner = await loginAs(this.server, { username: `${prefix}owner-${this.opts.engine.name}` });
    const other = await loginAs(this.server, { username: `${prefix}other-${this.opts.engine.name}` });
    await this.ctx.db.db.updateTable('users').set({ quota: START }).where('id', '=', owner.userId).execute();
    this.ctx.bus.publish(`user:${owner.userId}`);
    const token = await seedToken(this.ctx, { userId: owner.userId, remain: START });
    return { owner, other, token };
  }
}

/**
 * A gateway on SQLite whose own task loop runs every 100 ms, with the platform's channel over a fresh upstream
 * and a funded user and token; everything is closed after `run`.
 */
export async function withLoopingGateway<U extends TaskUpstream>(
  platform: TaskPlatformSetup<U>,
  run: (g: { server: TestServer; upstream: U; userId: number; apiKey: string }) => Promise<void>,
) {
  const upstream = await platform.upstream();
  const server = await startServer({ env: { TASK_POLL_INTERVAL: '0.1' } });
  try {
    await seedChannel(server.ctx, { ...platform.channel, baseUrl: upstream.url });
    const user = await seedUser(server.ctx, { quota: START });
    const token = await seedToken(server.ctx, { userId: user.id, remain: START });
    await run({ server, upstream, userId: user.id, apiKey: token.apiKey });
  } finally {
    await server.close();
    await upstream.close();
  }
}
