import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { REDIS_URL, redisUp as redisAvailable } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Settings that change what the relay accepts, turned on the way an admin does (PUT /api/option/) and
 * checked with the official client: sensitive words on the prompt, per-user and per-group request limits.
 */
describe('relay: settings that refuse requests', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  const MODEL = 'gpt-4o-mini';

  let lastUserId = 0;
  const clientFor = async (group = 'default') => {
    const user = await seedUser(server.ctx, { quota: 50_000_000, group });
    lastUserId = user.id;
    const token = await seedToken(server.ctx, { userId: user.id, remain: 50_000_000 });
    return new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  };
  const setOption = async (key: string, value: string) => {
    const res = await admin.put('/api/option/', { key, value });
    expect(res.success, `${key}: ${res.message}`).toBe(true);
  };
  const ask = (client: OpenAI, content: string | OpenAI.Chat.Completions.ChatCompletionContentPart[]) =>
    client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content } as OpenAI.Chat.Completions.ChatCompletionMessageParam],
    });

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    admin = await loginAs(server, { username: 'root1', role: Role.Root });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-good',
      models: [MODEL],
      group: 'default,vip',
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('refuses a prompt with a sensitive word once the admin lists it, without calling the upstream', async () => {
    const client = await clientFor();
    expect((await ask(client, 'tell me about the weather')).choices[0].message.content).toBeTruthy();

    // Words with regular-expression characters and letters outside ASCII; U+0130 (İ) lowers to "i" + U+0307.
    await setOption('SensitiveWords', 'forbidden-topic\nBadWord\nc++ (beta)\nécole\nhi');
    await setOption('CheckSensitiveEnabled', 'true');
    await setOption('CheckSensitiveOnPromptEnabled', 'true');
    const before = mock.requests.length;
    for (const content of [
      'please explain badword to me',
      [{ type: 'text' as const, text: 'x FORBIDDEN-TOPIC y' }],
      'tips for C++ (BETA) builds',
      'LA GRANDE ÉCOLE',
      'HİGH',
    ]) {
      const err = await ask(client, content).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.status).toBe(400);
      expect(err.code).toBe('sensitive_words_detected');
    }
    expect(mock.requests.length).toBe(before);
    expect((await ask(client, 'c++ beta builds, une ecole')).choices[0].message.content).toBeTruthy();

    await setOption('CheckSensitiveOnPromptEnabled', 'false');
    expect((await ask(client, 'please explain badword to me')).choices[0].message.content).toBeTruthy();
  });

  it('limits requests per user within the period once the admin turns the limit on', async () => {
    const client = await clientFor();
    const other = await clientFor();
    await setOption('ModelRequestRateLimitDurationMinutes', '1');
    await setOption('ModelRequestRateLimitCount', '2');
    await setOption('ModelRequestRateLimitSuccessCount', '1000');
    await setOption('ModelRequestRateLimitEnabled', 'true');
    await ask(client, 'one');
    await ask(client, 'two');
    const err = await ask(client, 'three').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/at most 2 requests in 1 minute/);
    // Another user has a window of their own.
    expect((await ask(other, 'one')).choices[0].message.content).toBeTruthy();
  });

  it('applies a group limit before the global one', async () => {
    await setOption('ModelRequestRateLimitGroup', JSON.stringify({ vip: [0, 1] }));
    const vip = await clientFor('vip');
    await ask(vip, 'first');
    const err = await ask(vip, 'second').catch((e) => e);
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/at most 1 successful requests/);

    await setOption('ModelRequestRateLimitEnabled', 'false');
    expect((await ask(vip, 'third')).choices[0].message.content).toBeTruthy();
  });

  it('refuses a malformed group limit with a 400 and keeps the old value', async () => {
    const res = await admin.put('/api/option/', {
      key: 'ModelRequestRateLimitGroup',
      value: '{"vip": [5, 0]}',
    });
    expect(res.status).toBe(400);
    expect(server.ctx.options.json('ModelRequestRateLimitGroup')).toEqual({ vip: [0, 1] });
  });

  it('sends the body upstream unchanged when the admin turns pass-through on', async () => {
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-good',
      models: ['gpt-4o'],
      group: 'pt',
      paramOverride: { temperature: 0.1 },
    });
    const client = await clientFor('pt');
    const send = async () => {
      const stream = await client.chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        temperature: 0.9,
        messages: [{ role: 'user', content: 'hi' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text.length).toBeGreaterThan(0);
      return mock.requests[mock.requests.length - 1].body;
    };
    const normal = await send();
    expect(normal.temperature).toBe(0.1);
    expect(normal.stream_options).toEqual({ include_usage: true });

    await setOption('global.pass_through_request_enabled', 'true');
    const passed = await send();
    expect(passed.temperature).toBe(0.9);
    expect(passed.stream_options).toBeUndefined();
    await setOption('global.pass_through_request_enabled', 'false');
  });

  it('bills but writes no usage log row while the admin has consumption logs off', async () => {
    const client = await clientFor();
    const userId = lastUserId;
    await setOption('LogConsumeEnabled', 'false');
    await ask(client, 'not logged');
    await flushLedger(server.ctx);
    const logs = () =>
      server.ctx.logDb.db
        .selectFrom('logs')
        .select('quota')
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .execute();
    expect(await logs()).toEqual([]);
    const used = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(used.used_quota)).toBeGreaterThan(0);

    await setOption('LogConsumeEnabled', 'true');
    await ask(client, 'logged');
    await flushLedger(server.ctx);
    expect(await logs()).toHaveLength(1);
  });
});

const redisUp = await redisAvailable();

describe.skipIf(!redisUp)('relay: model request limits kept in Redis', () => {
  let server: TestServer;
  let mock: MockUpstream;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { REDIS_CONN_STRING: REDIS_URL } });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-upstream-good', models: ['gpt-4o-mini'] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('counts requests in Redis and refuses the one over the limit', async () => {
    const user = await seedUser(server.ctx, { quota: 50_000_000 });
    const token = await seedToken(server.ctx, { userId: user.id, remain: 50_000_000 });
    // Fresh test databases reuse ids: start this user's windows empty.
    await server.ctx.redis?.del(`modelgate:mrl:t:${user.id}`, `modelgate:mrl:s:${user.id}`);
    for (const [key, value] of [
      ['ModelRequestRateLimitDurationMinutes', '1'],
      ['ModelRequestRateLimitCount', '2'],
      ['ModelRequestRateLimitSuccessCount', '1000'],
      ['ModelRequestRateLimitEnabled', 'true'],
    ])
      await server.ctx.options.set(key, value);
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    await ask();
    await ask();
    const err = await ask().catch((e) => e);
    expect(err.status).toBe(429);
    expect(await server.ctx.redis?.zcard(`modelgate:mrl:t:${user.id}`)).toBe(2);
    expect(await server.ctx.redis?.zcard(`modelgate:mrl:s:${user.id}`)).toBe(2);
    await server.ctx.redis?.del(`modelgate:mrl:t:${user.id}`, `modelgate:mrl:s:${user.id}`);
  });
});
