import { describe, expect, it } from 'vitest';
import { loginAs } from './support/console-client.ts';
import { scrape } from './support/prometheus.ts';
import { chatBody, METRICS, responseCacheRelay } from './support/response-cache-relay.ts';
import { startServer } from './support/server.ts';

/**
 * The response cache's switches and what it costs: on for the groups the operator lists, by request header where
 * allowed, for a token its owner turned it on for in the console; a hit billed at the hit ratio and logged with
 * the tokens saved, counted in /metrics; entries expire after their TTL.
 */
describe('response cache', () => {
  const relay = responseCacheRelay(startServer);

  it('is off for groups not listed; a request turns it on by header only where the operator allows it', async () => {
    const body = chatBody('vip asks');
    const on = { 'x-modelgate-cache': 'on' };
    for (let i = 0; i < 2; i++) {
      const res = await relay.postChat(relay.vip, body, on);
      expect(res.headers.get('x-modelgate-cache')).toBeNull();
    }
    await relay.server.ctx.options.set('response_cache.request_header_enabled', 'true');
    try {
      expect(
        (await relay.kept(() => relay.postChat(relay.vip, body, on))).headers.get('x-modelgate-cache'),
      ).toBe('miss');
      expect((await relay.postChat(relay.vip, body, on)).headers.get('x-modelgate-cache')).toBe('hit');
      expect((await relay.postChat(relay.vip, body)).headers.get('x-modelgate-cache')).toBeNull();
    } finally {
      await relay.server.ctx.options.set('response_cache.request_header_enabled', 'false');
    }
    // `off` keeps a listed group's request away from it.
    const before = relay.upstreamCalls();
    const res = await relay.postChat(relay.alice, chatBody('headers, please'), {
      'x-modelgate-cache': 'off',
    });
    expect(res.headers.get('x-modelgate-cache')).toBeNull();
    expect(relay.upstreamCalls()).toBe(before + 1);
  });

  it('is on for a token the owner turned it on for in the console, whatever its group', async () => {
    const owner = await loginAs(relay.server, {
      username: `rc${Date.now() % 100000}`,
      group: 'vip',
      quota: 10_000_000,
    });
    const made = await owner.post('/api/token/', {
      name: 'cached',
      unlimited_quota: true,
      response_cache: true,
    });
    expect(made.success, made.message).toBe(true);
    const token = made.data[0] as { id: number; key: string; response_cache: boolean };
    expect(token.response_cache).toBe(true);
    const key = { apiKey: `sk-${token.key}` };
    const body = chatBody('my token caches');
    expect((await relay.kept(() => relay.postChat(key, body))).headers.get('x-modelgate-cache')).toBe('miss');
    expect((await relay.postChat(key, body)).headers.get('x-modelgate-cache')).toBe('hit');

    const off = await owner.put('/api/token/', { id: token.id, response_cache: false });
    expect(off.success, off.message).toBe(true);
    expect((await owner.get(`/api/token/${token.id}`)).data.response_cache).toBe(false);
    expect((await relay.postChat(key, body)).headers.get('x-modelgate-cache')).toBeNull();
  });

  it('bills a hit at the hit ratio and logs it with the tokens saved', async () => {
    const carol = await relay.funded();
    await relay.server.ctx.options.set('response_cache.hit_ratio', '0.5');
    try {
      const body = chatBody('billing of a hit');
      expect((await relay.kept(() => relay.postChat(carol, body))).headers.get('x-modelgate-cache')).toBe(
        'miss',
      );
      expect((await relay.postChat(carol, body)).headers.get('x-modelgate-cache')).toBe('hit');
    } finally {
      await relay.server.ctx.options.set('response_cache.hit_ratio', '0');
    }
    const dave = await relay.funded();
    const body = chatBody('billing of a free hit');
    await relay.kept(() => relay.postChat(dave, body));
    expect((await relay.postChat(dave, body)).headers.get('x-modelgate-cache')).toBe('hit');

    const [paid, hit] = await relay.logRows(carol.id);
    expect(paid.quota).toBeGreaterThan(0);
    const other = JSON.parse(hit.other ?? '{}');
    expect(other).toMatchObject({
      content_code: 'response_cache_hit',
      response_cache_hit: true,
      response_cache_ratio: 0.5,
      saved_prompt_tokens: paid.prompt_tokens,
      saved_completion_tokens: paid.completion_tokens,
    });
    expect(hit.quota).toBe(Math.round(paid.quota * 0.5));
    expect(other.saved_quota).toBe(paid.quota - hit.quota);
    expect(hit.channel_id).toBe(0);
    expect(hit.prompt_tokens + hit.completion_tokens).toBe(0);
    const user = await relay.server.ctx.db.db
      .selectFrom('users')
      .select(['used_quota', 'request_count'])
      .where('id', '=', carol.id)
      .executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBe(paid.quota + hit.quota);
    expect(Number(user.request_count)).toBe(2);

    const [, free] = await relay.logRows(dave.id);
    expect(free.quota).toBe(0);
    expect(JSON.parse(free.other ?? '{}').response_cache_hit).toBe(true);
  });

  it('counts lookups, stores and saved tokens in /metrics', async () => {
    const m0 = await scrape(relay.server.url, METRICS);
    const body = chatBody('metrics count this');
    await relay.kept(() => relay.postChat(relay.alice, body));
    await relay.postChat(relay.alice, body);
    const rows = await relay.logRows(relay.alice.id);
    const paid = rows.at(-2)!;
    await expect
      .poll(async () => {
        const m1 = await scrape(relay.server.url, METRICS);
        const d = (name: string, labels?: Record<string, string>) =>
          m1.value(name, labels) - m0.value(name, labels);
        return {
          hit: d('modelgate_response_cache_lookups_total', { format: 'openai', result: 'hit' }),
          miss: d('modelgate_response_cache_lookups_total', { format: 'openai', result: 'miss' }),
          stores: d('modelgate_response_cache_stores_total'),
          prompt: d('modelgate_response_cache_saved_tokens_total', { direction: 'prompt' }),
          completion: d('modelgate_response_cache_saved_tokens_total', { direction: 'completion' }),
        };
      })
      .toEqual({
        hit: 1,
        miss: 1,
        stores: 1,
        prompt: paid.prompt_tokens,
        completion: paid.completion_tokens,
      });
  });

  it('lets an entry expire after its TTL', async () => {
    await relay.server.ctx.options.set('response_cache.ttl_seconds', '1');
    try {
      const body = chatBody('short lived');
      expect(
        (await relay.kept(() => relay.postChat(relay.alice, body))).headers.get('x-modelgate-cache'),
      ).toBe('miss');
      // Hits until the second has passed, then a miss that goes upstream again.
      await expect
        .poll(async () => (await relay.postChat(relay.alice, body)).headers.get('x-modelgate-cache'), {
          timeout: 20_000,
        })
        .toBe('miss');
    } finally {
      await relay.server.ctx.options.set('response_cache.ttl_seconds', '3600');
    }
  });
});
