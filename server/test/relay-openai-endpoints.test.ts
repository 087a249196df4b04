import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { openAiRelay, START } from './support/openai-relay.ts';
import { seedToken, seedUser } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * The OpenAI endpoints other than chat through the gateway with the official client, against a mock upstream
 * that replays the recorded provider responses: embeddings, images, speech, transcriptions, moderations,
 * rerank, the model list, the console's playground and the billing endpoints. Each case checks the answer, the
 * usage log row and the quota charged, worked out by hand from the recorded usage and the built-in prices
 * (ratio 1 = $0.002 / 1K tokens).
 */
describe('relay: OpenAI endpoints', () => {
  const relay = openAiRelay(startServer);

  it('relays embeddings (charged at least 1 quota)', async () => {
    const { data, response } = await relay.client.embeddings
      .create({ model: 'text-embedding-3-small', input: ['hello world', 'goodbye'] })
      .withResponse();
    expect(data.data).toHaveLength(2);
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    // mock usage: 3 + 2 = 5 tokens x 0.01 = 0.05 -> rounds to 0, raised to the minimum of 1
    expect(log.prompt_tokens).toBe(5);
    expect(log.quota).toBe(1);
  });

  it('relays image generation at the per-image price', async () => {
    const { data, response } = await relay.client.images
      .generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1024x1792', quality: 'hd' })
      .withResponse();
    expect(data.data?.[0].url).toBe('https://example.com/image.png');
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    // $0.04 x 2 (tall) x 1.5 (hd at a tall size) x 1 image x 500000 = 60000
    expect(log.quota).toBe(60000);
  });

  it('passes speech audio through byte for byte', async () => {
    const res = await relay.client.audio.speech
      .create({ model: 'tts-1', voice: 'alloy', input: 'Hello world!' })
      .asResponse();
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 3).toString()).toBe('ID3');
    const log = await relay.logOf(res.headers.get('x-oneapi-request-id'));
    // 12 characters x 7.5 = 90
    expect(log.prompt_tokens).toBe(12);
    expect(log.quota).toBe(90);
  });

  it('relays a multipart transcription billed by duration', async () => {
    relay.mock.requests.length = 0;
    const file = await toFile(Buffer.from('RIFF....WAVEfmt fake audio'), 'hello.wav', { type: 'audio/wav' });
    const { data, response } = await relay.client.audio.transcriptions
      .create({ model: 'whisper-1', file })
      .withResponse();
    expect(data.text).toBe('Hello from the recording.');
    expect(String(relay.mock.requests[0].headers['content-type'])).toContain('multipart/form-data');
    expect(relay.mock.requests[0].raw.toString()).toContain('fake audio');
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    // 3.2 s -> 4 s -> 4/60 x 1000 = 66.7 -> 67 tokens x 15 = 1005
    expect(log.prompt_tokens).toBe(67);
    expect(log.quota).toBe(1005);
  });

  it('relays moderations, counting tokens locally when upstream reports none', async () => {
    const { data, response } = await relay.client.moderations
      .create({ model: 'omni-moderation-latest', input: 'I like kittens' })
      .withResponse();
    expect(data.results[0].flagged).toBe(false);
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log.quota).toBe(0); // ratio 0: free
  });

  it('relays rerank', async () => {
    const res = await fetch(`${relay.server.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'jina-reranker-v2-base-multilingual',
        query: 'organic skincare',
        documents: ['a', 'b'],
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: unknown[] };
    expect(body.results).toHaveLength(2);
    const log = await relay.logOf(res.headers.get('x-oneapi-request-id'));
    // 38 tokens x 0.01 = 0.38 -> 0 -> minimum 1
    expect(log.prompt_tokens).toBe(38);
    expect(log.quota).toBe(1);
  });

  it('lists models in OpenAI shape, filtered by the token model limits', async () => {
    const all = await relay.client.models.list();
    const ids = all.data.map((m) => m.id);
    expect(ids).toContain('gpt-4o');
    expect(ids).toContain('deepseek-chat');
    expect(all.data[0]).toMatchObject({ object: 'model' });
    const limited = await seedToken(relay.server.ctx, {
      userId: relay.userId,
      remain: 1000,
      modelLimits: ['gpt-4o', 'not-served'],
    });
    const c2 = new OpenAI({ apiKey: limited.apiKey, baseURL: `${relay.server.url}/v1`, maxRetries: 0 });
    expect((await c2.models.list()).data.map((m) => m.id)).toEqual(['gpt-4o']);
    expect((await c2.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    await expect(c2.models.retrieve('deepseek-chat')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    await expect(
      c2.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('serves the playground from the console session, billing the user only', async () => {
    const player = await seedUser(relay.server.ctx, { quota: 1_000_000, password: 'playground-pass-1' });
    const login = await fetch(`${relay.server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: player.username, password: 'playground-pass-1' }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const play = (body: Record<string, unknown>) =>
      fetch(`${relay.server.url}/pg/chat/completions`, {
        method: 'POST',
        headers: { cookie, 'new-api-user': String(player.id), 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4.1-nano-2025-04-14',
          ...body,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
    const res = await play({ group: 'default', stream: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"delta"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const log = await relay.logOf(res.headers.get('x-oneapi-request-id'));
    expect(log.token_name).toBe('playground-default');
    expect(log.token_id).toBe(0);
    expect(log.quota).toBe(61);
    const u = await relay.server.ctx.db.db
      .selectFrom('users')
      .select('quota')
      .where('id', '=', player.id)
      .executeTakeFirstOrThrow();
    expect(u.quota).toBe(1_000_000 - 61);
    const denied = await play({ group: 'not-mine' });
    expect(denied.status).toBe(403);
    const anonymous = await fetch(`${relay.server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { message: string } }).error.message).toBeTruthy();
  });

  it('emulates the OpenAI billing endpoints', async () => {
    const headers = { authorization: `Bearer ${relay.client.apiKey}` };
    const sub = (await (
      await fetch(`${relay.server.url}/v1/dashboard/billing/subscription`, { headers })
    ).json()) as Record<string, unknown>;
    expect(sub.object).toBe('billing_subscription');
    expect(sub.hard_limit_usd as number).toBeCloseTo(START / 500000, 6);
    const usage = (await (
      await fetch(`${relay.server.url}/dashboard/billing/usage`, { headers })
    ).json()) as {
      object: string;
      total_usage: number;
    };
    expect(usage.object).toBe('list');
    expect(usage.total_usage).toBeGreaterThan(0);
  });
});
