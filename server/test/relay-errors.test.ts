import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Client mistakes and refusals: a 4xx in OpenAI's error shape, with the request id, and nothing billed or sent upstream. */
describe('relay: errors and token checks', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let userId: number;
  let apiKey: string;
  const MODEL = 'gpt-4.1-nano-2025-04-14';

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600', MAX_REQUEST_BODY_MB: '1' } });
    userId = (await seedUser(server.ctx, { quota: 1_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, remain: 1_000_000 })).apiKey;
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL, 'unpriced-model'] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  async function post(body: string | object, opts: { key?: string; type?: string; path?: string } = {}) {
    const res = await fetch(`${server.url}${opts.path ?? '/v1/chat/completions'}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${opts.key ?? apiKey}`,
        'content-type': opts.type ?? 'application/json',
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await res.json()) as {
      error: { message: string; type: string; param: string | null; code: string | null };
    };
    return { status: res.status, error: json.error, id: res.headers.get('x-oneapi-request-id') };
  }

  const chat = (extra: object = {}) => ({
    model: MODEL,
    messages: [{ role: 'user', content: 'hi' }],
    ...extra,
  });

  it('refuses bad input with a 4xx in OpenAI shape and bills nothing', async () => {
    await flushLedger(server.ctx);
    const before = await server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    mock.requests.length = 0;
    const cases: Array<[string, Awaited<ReturnType<typeof post>>, number]> = [
      ['malformed JSON', await post('{"model":'), 400],
      ['missing model', await post({ messages: [{ role: 'user', content: 'hi' }] }), 400],
      ['missing messages', await post({ model: MODEL }), 400],
      ['negative max_tokens', await post(chat({ max_tokens: -5 })), 400],
      ['unknown model', await post(chat({ model: 'no-such-model' })), 404],
      ['unpriced model', await post(chat({ model: 'unpriced-model' })), 403],
      ['wrong content type', await post('model=x', { type: 'application/x-www-form-urlencoded' }), 400],
      [
        'body over the limit',
        await post(chat({ messages: [{ role: 'user', content: 'x'.repeat(1_200_000) }] })),
        413,
      ],
      [
        'bad image n',
        await post({ model: 'dall-e-3', prompt: 'x', n: 0 }, { path: '/v1/images/generations' }),
        400,
      ],
    ];
    for (const [name, r, status] of cases) {
      expect({ name, status: r.status }).toEqual({ name, status });
      expect(r.error.message).toContain(`(request id: ${r.id})`);
      expect(typeof r.error.type).toBe('string');
      expect(r.error).toHaveProperty('param');
      expect(r.error).toHaveProperty('code');
    }
    expect(mock.requests).toHaveLength(0);
    await flushLedger(server.ctx);
    const after = await server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
  });

  it('checks the token: missing, unknown, disabled, expired, exhausted, banned owner', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat()),
    });
    expect(res.status).toBe(401);
    expect((await post(chat(), { key: 'sk-doesnotexist' })).status).toBe(401);
    const disabled = await seedToken(server.ctx, { userId, remain: 1000, status: 2 });
    expect((await post(chat(), { key: disabled.apiKey })).status).toBe(401);
    const expired = await seedToken(server.ctx, {
      userId,
      remain: 1000,
      expiredTime: Math.floor(Date.now() / 1000) - 10,
    });
    const e = await post(chat(), { key: expired.apiKey });
    expect(e.status).toBe(401);
    expect(e.error.code).toBe('token_expired');
    const empty = await seedToken(server.ctx, { userId, remain: 0 });
    expect((await post(chat(), { key: empty.apiKey })).status).toBe(403);
    const banned = await seedUser(server.ctx, { quota: 1000, status: 2 });
    const bannedToken = await seedToken(server.ctx, { userId: banned.id, remain: 1000 });
    const b = await post(chat(), { key: bannedToken.apiKey });
    expect(b.status).toBe(403);
    expect(b.error.code).toBe('user_banned');
  });

  it('applies a token status change announced on the bus without a restart', async () => {
    const t = await seedToken(server.ctx, { userId, remain: 100_000 });
    expect((await post(chat(), { key: t.apiKey })).status).toBe(200);
    await server.ctx.db.db.updateTable('tokens').set({ status: 2 }).where('id', '=', t.id).execute();
    server.ctx.bus.publish(`token:${t.id}`);
    await new Promise((r) => setTimeout(r, 100));
    expect((await post(chat(), { key: t.apiKey })).status).toBe(401);
  });

  it('enforces the IP allow list, the token group and the quota', async () => {
    const elsewhere = await seedToken(server.ctx, {
      userId,
      remain: 100_000,
      allowIps: '10.1.2.3\n192.168.0.0/16',
    });
    const r = await post(chat(), { key: elsewhere.apiKey });
    expect(r.status).toBe(403);
    expect(r.error.code).toBe('ip_not_allowed');
    const local = await seedToken(server.ctx, { userId, remain: 100_000, allowIps: '127.0.0.1' });
    expect((await post(chat(), { key: local.apiKey })).status).toBe(200);

    const badGroup = await seedToken(server.ctx, { userId, remain: 100_000, group: 'secret-group' });
    expect((await post(chat(), { key: badGroup.apiKey })).status).toBe(403);

    const poor = await seedUser(server.ctx, { quota: 10 });
    const poorToken = await seedToken(server.ctx, { userId: poor.id, remain: 100_000 });
    const q = await post(chat({ max_tokens: 1000 }), { key: poorToken.apiKey });
    expect(q.status).toBe(403);
    expect(q.error.type).toBe('insufficient_quota');
  });

  it('serves unpriced models in self-use mode', async () => {
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: 'unpriced-model',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices.length).toBeGreaterThan(0);
    await server.ctx.options.set('SelfUseModeEnabled', 'false');
  });

  it('answers CORS preflights on the relay', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
  });

  it('answers unknown relay paths and not-implemented endpoints in OpenAI shape', async () => {
    const r = await post({}, { path: '/v1/files' });
    expect(r.status).toBe(501);
    expect(r.error.code).toBe('api_not_implemented');
  });
});
