import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Routing and failover: a broken channel in the top tier (500, timeout, refused key) must not cost the client
 * its answer when retries are on, the failing channel is disabled when the options say so, and the log row
 * records the retry chain.
 */
describe('relay: routing and failover', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let client: OpenAI;
  let userId: number;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600', RELAY_TIMEOUT: '1' } });
    userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    const token = await seedToken(server.ctx, { userId, remain: 10_000_000 });
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    await server.ctx.options.set('RetryTimes', '2');
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  async function lastLog() {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db.selectFrom('logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  }

  const ask = (model: string) =>
    client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

  for (const [what, key] of [
    ['answers 500', 'sk-fail500'],
    ['times out', 'sk-timeout'],
    ['refuses the key', 'sk-badkey'],
  ] as const) {
    it(`falls over to the next tier when the first channel ${what}`, async () => {
      const model = `gpt-4.1-nano-2025-04-14`;
      const group = `g-${key.slice(3)}`;
      await server.ctx.options.set(
        'GroupRatio',
        JSON.stringify({ ...server.ctx.options.json('GroupRatio'), [group]: 1 }),
      );
      await server.ctx.options.set(
        'UserUsableGroups',
        JSON.stringify({ ...server.ctx.options.json('UserUsableGroups'), [group]: group }),
      );
      const bad = await seedChannel(server.ctx, {
        baseUrl: mock.url,
        key,
        models: [model],
        group,
        priority: 10,
      });
      const good = await seedChannel(server.ctx, {
        baseUrl: mock.url,
        key: 'sk-good',
        models: [model],
        group,
        priority: 0,
      });
      const token = await seedToken(server.ctx, { userId, remain: 1_000_000, group });
      const c = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const answer = await c.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0].message.content).toContain('Galaxy Day');
      const log = await lastLog();
      expect(log.channel_id).toBe(good.id);
      expect(JSON.parse(log.other).admin_info.use_channel).toEqual([String(bad.id), String(good.id)]);
      expect(log.quota).toBe(73);
    });
  }

  it('disables a channel whose key is refused when automatic disabling is on, so the next request skips it', async () => {
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const model = 'deepseek-chat';
    const bad = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-badkey',
      models: [model],
      priority: 5,
    });
    const good = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good2',
      models: [model],
      priority: 0,
    });
    await ask(model);
    const row = await server.ctx.db.db
      .selectFrom('channels')
      .select(['status', 'other_info'])
      .where('id', '=', bad.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe(3);
    mock.requests.length = 0;
    await ask(model);
    // Only the healthy channel was called this time.
    expect(mock.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-good2']);
    expect((await lastLog()).channel_id).toBe(good.id);
    expect(relayState(server.ctx).channels.get(bad.id)?.status).toBe(3);
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });

  it('keeps a channel with auto_ban off, and does not disable on a plain 500', async () => {
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const model = 'mistral-small-latest';
    const noBan = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-badkey',
      models: [model],
      priority: 5,
      autoBan: false,
    });
    const flaky = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-fail500',
      models: [model],
      priority: 4,
    });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good3', models: [model], priority: 0 });
    await ask(model);
    const rows = await server.ctx.db.db
      .selectFrom('channels')
      .select(['id', 'status'])
      .where('id', 'in', [noBan.id, flaky.id])
      .execute();
    expect(rows.map((r) => r.status)).toEqual([1, 1]);
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });

  it('without retries the client gets the upstream error, scrubbed of the channel key, and is not charged', async () => {
    await server.ctx.options.set('RetryTimes', '0');
    const model = 'grok-3-mini';
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-badkey', models: [model] });
    await flushLedger(server.ctx);
    const before = await server.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const err = await ask(model).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    // An upstream 401 refuses the channel's key, not the caller's: the gateway's own error.
    expect(err.status).toBe(503);
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.message).not.toContain('sk-badkey');
    expect(err.message).not.toContain('Incorrect API key');
    expect(err.message).toMatch(/request id: \d{14}[0-9a-f]{8}/);
    await flushLedger(server.ctx);
    const after = await server.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(after.quota).toBe(before.quota);
    await server.ctx.options.set('RetryTimes', '2');
  });

  it('applies model mapping, status-code mapping and param override', async () => {
    const model = 'my-alias';
    await server.ctx.options.set('ModelRatio', JSON.stringify({ 'my-alias': 0.05 }));
    await server.ctx.options.set('CompletionRatio', JSON.stringify({ 'my-alias': 4 }));
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good4',
      models: [model],
      modelMapping: { 'my-alias': 'gpt-4.1-nano-2025-04-14' },
      paramOverride: { temperature: 0.2 },
    });
    mock.requests.length = 0;
    await ask(model);
    expect(mock.requests[0].body.model).toBe('gpt-4.1-nano-2025-04-14');
    expect(mock.requests[0].body.temperature).toBe(0.2);
    const log = await lastLog();
    expect(log.model_name).toBe('my-alias');
    expect(JSON.parse(log.other)).toMatchObject({
      is_model_mapped: true,
      upstream_model_name: 'gpt-4.1-nano-2025-04-14',
    });
    expect(log.quota).toBe(73);

    await server.ctx.options.set('RetryTimes', '0');
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-fail500',
      models: ['mapped-status'],
      statusCodeMapping: { '500': '502' },
    });
    await server.ctx.options.set('ModelRatio', JSON.stringify({ 'my-alias': 0.05, 'mapped-status': 1 }));
    const err = await ask('mapped-status').catch((e) => e);
    expect(err.status).toBe(502);
    await server.ctx.options.set('RetryTimes', '2');
  });

  it('lets an admin pin a channel with sk-key-id, and refuses the syntax to other users', async () => {
    const admin = await seedUser(server.ctx, { quota: 1_000_000, role: 10 });
    const adminToken = await seedToken(server.ctx, { userId: admin.id, remain: 1_000_000 });
    const a = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-pin-a',
      models: ['gpt-4o'],
      priority: 9,
    });
    const b = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-pin-b',
      models: ['gpt-4o'],
      priority: 0,
    });
    const pinned = new OpenAI({
      apiKey: `${adminToken.apiKey}-${b.id}`,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    mock.requests.length = 0;
    await pinned.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests[0].headers.authorization).toBe('Bearer sk-pin-b');
    expect(a.id).not.toBe(b.id);
    const user = await seedToken(server.ctx, { userId, remain: 1000 });
    const notAdmin = new OpenAI({
      apiKey: `${user.apiKey}-${b.id}`,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    await expect(
      notAdmin.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('answers 503 for a known model without a channel here, 404 for a model nobody serves or prices', async () => {
    await server.ctx.options.set(
      'ModelRatio',
      JSON.stringify({ 'elsewhere-model': 1, 'priced-unserved': 1 }),
    );
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good-vip',
      models: ['elsewhere-model'],
      group: 'vip-only',
    });
    const busy = await ask('elsewhere-model').catch((e) => e);
    expect(busy.status).toBe(503);
    expect(busy.code).toBe('no_available_channel');
    expect((await ask('priced-unserved').catch((e) => e)).status).toBe(503);
    const unknown = await ask('nobody-serves-this').catch((e) => e);
    expect(unknown.status).toBe(404);
    expect(unknown.code).toBe('model_not_found');
    // Names of built-in object properties are models like any other: unknown here.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const e = await ask(name).catch((err) => err);
      expect(e.status, name).toBe(404);
      expect(e.code, name).toBe('model_not_found');
    }
  });
});
