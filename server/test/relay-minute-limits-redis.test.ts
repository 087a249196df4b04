import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectJson } from '../src/relay/admit/inspect-request.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { redisUp as redisAvailable } from './support/databases.ts';
import { startInstances } from './support/instances.ts';
import { type MinuteClock, minuteClock } from './support/minute-clock.ts';
import { startUsageMock, type UsageMock } from './support/mock-usage.ts';
import { seedChannel } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Per-minute limits kept in Redis: two gateway instances on one database and one Redis count every request
 * and its tokens in the same windows, so a cap holds across them as it does on one instance. Both read one clock
 * that moves only when a test moves it.
 */
const redisUp = await redisAvailable();
const MODEL = 'gpt-4o-mini';
const MAX_TOKENS = 100;
const BODY = {
  model: MODEL,
  max_tokens: MAX_TOKENS,
  messages: [{ role: 'user' as const, content: 'y'.repeat(60) }],
};
const ESTIMATE = inspectJson('chat', BODY).promptEstimate + MAX_TOKENS;

let seq = 0;
const uniq = (prefix: string) => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe.skipIf(!redisUp)('relay: per-minute limits shared through Redis by two instances', () => {
  let mock: UsageMock;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let a: TestServer;
  let b: TestServer;
  let clock: MinuteClock;

  const newToken = async (user: ConsoleClient, limits: { rpm_limit?: number; tpm_limit?: number }) => {
    const r = await user.post('/api/token/', { name: uniq('t'), unlimited_quota: true, ...limits });
    expect(r.success, r.message).toBe(true);
    return { id: r.data[0].id as number, apiKey: `sk-${r.data[0].key}` };
  };
  const sdk = (node: TestServer, apiKey: string) =>
    new OpenAI({ apiKey, baseURL: `${node.url}/v1`, maxRetries: 0 });
  const chat = (client: OpenAI) => client.chat.completions.create(BODY).withResponse();

  beforeAll(async () => {
    mock = await startUsageMock();
    cluster = await startInstances(2);
    [a, b] = cluster.nodes;
    // Fresh databases reuse token ids: start from empty windows.
    const redis = a.ctx.redis!;
    const stale = await redis.keys('modelgate:rl:*');
    if (stale.length) await redis.del(...stale);
    await seedChannel(a.ctx, { baseUrl: mock.url, key: 'sk-upstream', models: [MODEL] });
    await relayState(b.ctx).channels.reload();
    clock = minuteClock([a.ctx, b.ctx]);
  });
  afterAll(async () => {
    await cluster?.close();
    await mock?.close();
  });

  it('counts the requests of one token on both instances in one window', async () => {
    const user = await loginAs(a, { username: uniq('u'), quota: 1_000_000_000 });
    const { id, apiKey } = await newToken(user, { rpm_limit: 4 });
    const remaining: string[] = [];
    for (const node of [a, a, b, b])
      remaining.push((await chat(sdk(node, apiKey))).response.headers.get('x-ratelimit-remaining-requests')!);
    expect(remaining).toEqual(['3', '2', '1', '0']);
    clock.now += 500;
    for (const node of [a, b]) {
      const err = await chat(sdk(node, apiKey)).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect(err.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(err.headers.get('x-ratelimit-reset-requests')).toBe('59.5s');
      expect(err.headers.get('retry-after')).toBe('60');
    }
    // The windows expire with their last request.
    const ttl = await a.ctx.redis!.pttl(`modelgate:rl:t:${id}:z`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('corrects the estimate with the usage on either instance', async () => {
    mock.usage = { prompt: 10, completion: 10 };
    const user = await loginAs(a, { username: uniq('u'), quota: 1_000_000_000 });
    const tpm = 1000;
    const { apiKey } = await newToken(user, { tpm_limit: tpm });
    const n = 20;
    expect(n * ESTIMATE).toBeGreaterThan(tpm);
    let last: Headers | undefined;
    // Each answer's correction lands on its own instance's Redis connection, after the answer: wait for it
    // before the next request asks the other instance.
    for (let i = 0; i < n; i++) {
      last = (await chat(sdk(i % 2 ? b : a, apiKey))).response.headers;
      await clock.corrected();
    }
    expect(last?.get('x-ratelimit-remaining-tokens')).toBe(String(tpm - (n - 1) * 20 - ESTIMATE));
  });

  it('drops what left the window, with its tokens, on a clock both instances share', async () => {
    mock.usage = { prompt: 10, completion: 10 };
    const user = await loginAs(a, { username: uniq('u'), quota: 1_000_000_000 });
    const { apiKey } = await newToken(user, { rpm_limit: 2, tpm_limit: 10_000 });
    await chat(sdk(a, apiKey));
    clock.now += 30_000;
    await chat(sdk(b, apiKey));
    await clock.corrected();
    const err = await chat(sdk(a, apiKey)).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.headers.get('retry-after')).toBe('30');
    expect(err.headers.get('x-ratelimit-reset-requests')).toBe('30s');
    clock.now += 30_000;
    const { response } = await chat(sdk(b, apiKey));
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    // The first request (20 tokens once corrected) left; the second stays and the third is an estimate.
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBe(String(10_000 - 20 - ESTIMATE));
  });

  it('keeps 100 parallel requests over both instances within the limit plus one request', async () => {
    mock.usage = { prompt: ESTIMATE - MAX_TOKENS, completion: MAX_TOKENS };
    mock.delayMs = 200;
    try {
      const user = await loginAs(a, { username: uniq('u'), quota: 1_000_000_000 });
      const tpm = 2000;
      const { apiKey } = await newToken(user, { tpm_limit: tpm });
      const clients = [sdk(a, apiKey), sdk(b, apiKey)];
      const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => chat(clients[i % 2])));
      let used = 0;
      let ok = 0;
      for (const r of results) {
        if (r.status === 'fulfilled') {
          ok++;
          used += r.value.data.usage?.total_tokens ?? 0;
        } else expect(r.reason).toBeInstanceOf(OpenAI.RateLimitError);
      }
      expect(used).toBeLessThanOrEqual(tpm + ESTIMATE);
      expect(ok).toBeGreaterThanOrEqual(Math.floor(tpm / ESTIMATE));
    } finally {
      mock.delayMs = 0;
    }
  });
});
