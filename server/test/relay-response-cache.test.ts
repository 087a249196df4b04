import { ChannelType } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs } from './support/console-client.ts';
import { type Ask, type ClientFormat, formatClient } from './support/format-clients.ts';
import { type FormatsMock, startFormatsMock } from './support/mock-formats.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { scrape } from './support/prometheus.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The response cache over HTTP with the official SDKs of every client format, against mock upstreams that
 * replay recorded answers: a repeated request is answered without reaching an upstream (their request counts
 * do not move), in the caller's format, JSON and streamed; other users, tool calls, errors and n > 1 are not
 * served from it; it is billed at the hit ratio, logged and counted in /metrics.
 */
type Upstream = 'chat' | 'anthropic' | 'gemini' | 'responses';
const MODEL: Record<Upstream, string> = {
  chat: 'rc-chat',
  anthropic: 'rc-claude',
  gemini: 'rc-gemini',
  responses: 'rc-gpt5',
};
const METRICS = 'metrics-secret';
/** A chat model answered by Mistral's recordings, which have a tool call in JSON and streamed. */
const TOOLS_CHAT = 'rc-mistral';

/** Client format -> upstream pairs: each format relayed as is, and converted ones. */
const PAIRS: Array<[ClientFormat, Upstream]> = [
  ['openai', 'chat'],
  ['openai', 'anthropic'],
  ['anthropic', 'anthropic'],
  ['anthropic', 'gemini'],
  ['gemini', 'gemini'],
  ['gemini', 'responses'],
  ['responses', 'responses'],
  ['responses', 'anthropic'],
];

describe('response cache', () => {
  let server: TestServer;
  let chatMock: MockUpstream;
  let mock: FormatsMock;
  let alice: { id: number; apiKey: string };
  let bob: { id: number; apiKey: string };
  let vip: { id: number; apiKey: string };

  const upstreamCalls = () => chatMock.requests.length + mock.requests.length;

  async function funded(group = 'default') {
    const user = await seedUser(server.ctx, { quota: 100_000_000, group });
    const token = await seedToken(server.ctx, { userId: user.id, remain: 100_000_000 });
    return { id: user.id, apiKey: token.apiKey };
  }

  beforeAll(async () => {
    chatMock = await startMockUpstream();
    mock = await startFormatsMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600', METRICS_TOKEN: METRICS } });
    const { ctx } = server;
    const priced = [...Object.values(MODEL), TOOLS_CHAT, 'rc-error', 'rc-embed', 'rc-rerank'];
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(priced.map((m) => [m, n])));
    await ctx.options.set('ModelRatio', ratio(1));
    await ctx.options.set('CompletionRatio', ratio(2));
    await ctx.options.set('response_cache.groups', 'default');
    await ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1 }));
    const both = 'default,vip';
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: [MODEL.chat, TOOLS_CHAT, 'rc-embed', 'rc-rerank'],
      modelMapping: { [MODEL.chat]: 'gpt-4o', [TOOLS_CHAT]: 'mistral-large-latest' },
      group: both,
    });
    await seedChannel(ctx, {
      type: 43,
      baseUrl: chatMock.url,
      key: 'sk-quota',
      models: ['rc-error'],
      modelMapping: { 'rc-error': 'gpt-4o' },
      autoBan: false,
      group: both,
    });
    await seedChannel(ctx, {
      type: ChannelType.Anthropic,
      baseUrl: mock.url,
      key: 'sk-ant-mock',
      models: [MODEL.anthropic],
      modelMapping: { [MODEL.anthropic]: 'claude-sonnet-4-5' },
      group: both,
    });
    await seedChannel(ctx, {
      type: ChannelType.Gemini,
      baseUrl: mock.url,
      key: 'gm-mock',
      models: [MODEL.gemini],
      modelMapping: { [MODEL.gemini]: 'gemini-2.5-flash' },
      group: both,
    });
    await seedChannel(ctx, {
      type: ChannelType.OpenAI,
      baseUrl: mock.url,
      key: 'sk-resp-mock',
      models: [MODEL.responses],
      modelMapping: { [MODEL.responses]: 'gpt-5' },
      setting: { responses_api: true },
      group: both,
    });
    alice = await funded();
    bob = await funded();
    vip = await funded('vip');
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await chatMock?.close();
  });

  const ask = (format: ClientFormat, who: { apiKey: string }, model: string, a: Ask) =>
    formatClient(format, server.url, who.apiKey).ask(model, a);

  /**
   * Runs a call whose answer is to be kept, and waits until it is: the store is written once the answer has
   * been sent, so the client may be back before it is.
   */
  async function kept<T>(call: () => Promise<T>): Promise<T> {
    const stores = server.ctx.metrics!.responseCache;
    const before = stores.storedCount;
    const out = await call();
    await expect.poll(() => stores.storedCount).toBe(before + 1);
    return out;
  }

  /** A call's upstream requests: how many the call made. */
  async function counted<T>(call: () => Promise<T>): Promise<{ out: T; upstream: number }> {
    const before = upstreamCalls();
    const out = await call();
    return { out, upstream: upstreamCalls() - before };
  }

  async function logRows(userId: number) {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
  }

  const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({
    model: MODEL.chat,
    messages: [{ role: 'user', content }],
    ...extra,
  });
  const postChat = (who: { apiKey: string }, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  for (const [format, upstream] of PAIRS)
    for (const stream of [false, true])
      it(`${format} client, ${upstream} channel, ${stream ? 'streamed' : 'JSON'}: the repeat never reaches the upstream; another user's does`, async () => {
        const model = MODEL[upstream];
        const first = await kept(() => counted(() => ask(format, alice, model, { stream })));
        expect(first.upstream).toBe(1);
        expect(first.out.text.length).toBeGreaterThan(0);
        const again = await counted(() => ask(format, alice, model, { stream }));
        expect(again.upstream).toBe(0);
        expect(again.out).toEqual(first.out);
        const other = await counted(() => ask(format, bob, model, { stream }));
        expect(other.upstream).toBe(1);
        expect(other.out.text).toBe(first.out.text);
      });

  it('says hit or miss in X-ModelGate-Cache, and replays the same bytes', async () => {
    const body = chatBody('headers, please');
    const miss = await kept(() => postChat(alice, body));
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-modelgate-cache')).toBe('miss');
    const missText = await miss.text();
    const before = upstreamCalls();
    const hit = await postChat(alice, { messages: body.messages, model: body.model, user: 'someone-else' });
    expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
    expect(hit.headers.get('content-type')).toContain('application/json');
    expect(await hit.text()).toBe(missText);
    expect(upstreamCalls()).toBe(before);
  });

  it('keeps embeddings (with the official client) and rerank answers', async () => {
    const client = new OpenAI({ apiKey: alice.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const embed = () => client.embeddings.create({ model: 'rc-embed', input: ['cached vectors', 'two'] });
    const first = await kept(() => counted(embed));
    expect(first.upstream).toBe(1);
    const again = await counted(embed);
    expect(again.upstream).toBe(0);
    expect(again.out).toEqual(first.out);

    const rerank = () =>
      fetch(`${server.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rc-rerank', query: 'q', documents: ['a', 'b'] }),
      }).then(async (r) => ({
        status: r.status,
        cache: r.headers.get('x-modelgate-cache'),
        body: await r.json(),
      }));
    const r1 = await kept(() => counted(rerank));
    expect(r1.out).toMatchObject({ status: 200, cache: 'miss' });
    const r2 = await counted(rerank);
    expect(r2.upstream).toBe(0);
    expect(r2.out).toEqual({ ...r1.out, cache: 'hit' });
  });

  it('replays a stream as the same SSE frames, with its content type, for a relayed and a converted channel', async () => {
    for (const model of [MODEL.chat, MODEL.anthropic]) {
      const body = chatBody('stream headers', { model, stream: true });
      const miss = await kept(() => postChat(alice, body));
      expect(miss.headers.get('x-modelgate-cache')).toBe('miss');
      const missText = await miss.text();
      expect(missText).toContain('data: [DONE]');
      const before = upstreamCalls();
      const hit = await postChat(alice, body);
      expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
      expect(hit.headers.get('content-type')).toContain('text/event-stream');
      expect(await hit.text()).toBe(missText);
      expect(upstreamCalls()).toBe(before);
    }
  });

  it('does not keep tool calls the client must run (chat, Anthropic and Responses clients, JSON and streamed)', async () => {
    const cases: Array<[ClientFormat, string, boolean]> = [
      ['openai', MODEL.chat, true],
      ['anthropic', MODEL.anthropic, false],
      ['anthropic', MODEL.anthropic, true],
      ['responses', MODEL.anthropic, false],
      ['responses', MODEL.anthropic, true],
    ];
    for (const [format, model, stream] of cases) {
      const first = await counted(() => ask(format, alice, model, { tools: true, stream }));
      expect(first.out.calls.length).toBeGreaterThan(0);
      const again = await counted(() => ask(format, alice, model, { tools: true, stream }));
      expect(again.upstream).toBe(1);
    }
    // A chat answer in JSON whose only content is a tool call (Mistral's recording).
    const body = chatBody('weather?', {
      model: TOOLS_CHAT,
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    });
    for (let i = 0; i < 2; i++) {
      const res = await postChat(alice, body);
      expect(res.headers.get('x-modelgate-cache')).toBe('miss');
      expect(((await res.json()) as any).choices[0].message.tool_calls.length).toBe(1);
    }
  });

  it('does not keep errors', async () => {
    for (let i = 0; i < 2; i++) {
      const before = chatMock.requests.length;
      const res = await postChat(alice, { ...chatBody('an error'), model: 'rc-error' });
      expect(res.status).toBe(429);
      expect(chatMock.requests.length).toBe(before + 1);
    }
  });

  it('does not keep answers with n > 1 unless the operator allows it', async () => {
    const body = chatBody('two answers', { n: 2 });
    for (let i = 0; i < 2; i++) {
      const before = upstreamCalls();
      expect((await postChat(alice, body)).status).toBe(200);
      expect(upstreamCalls()).toBe(before + 1);
    }
    await server.ctx.options.set('response_cache.multiple_choices_enabled', 'true');
    try {
      const before = upstreamCalls();
      expect((await kept(() => postChat(alice, body))).status).toBe(200);
      expect((await postChat(alice, body)).headers.get('x-modelgate-cache')).toBe('hit');
      expect(upstreamCalls()).toBe(before + 1);
    } finally {
      await server.ctx.options.set('response_cache.multiple_choices_enabled', 'false');
    }
  });

  it('is off for groups not listed; a request turns it on by header only where the operator allows it', async () => {
    const body = chatBody('vip asks');
    const on = { 'x-modelgate-cache': 'on' };
    for (let i = 0; i < 2; i++) {
      const res = await postChat(vip, body, on);
      expect(res.headers.get('x-modelgate-cache')).toBeNull();
    }
    await server.ctx.options.set('response_cache.request_header_enabled', 'true');
    try {
      expect((await kept(() => postChat(vip, body, on))).headers.get('x-modelgate-cache')).toBe('miss');
      expect((await postChat(vip, body, on)).headers.get('x-modelgate-cache')).toBe('hit');
      expect((await postChat(vip, body)).headers.get('x-modelgate-cache')).toBeNull();
    } finally {
      await server.ctx.options.set('response_cache.request_header_enabled', 'false');
    }
    // `off` keeps a listed group's request away from it.
    const before = upstreamCalls();
    const res = await postChat(alice, chatBody('headers, please'), { 'x-modelgate-cache': 'off' });
    expect(res.headers.get('x-modelgate-cache')).toBeNull();
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('is on for a token the owner turned it on for in the console, whatever its group', async () => {
    const owner = await loginAs(server, {
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
    expect((await kept(() => postChat(key, body))).headers.get('x-modelgate-cache')).toBe('miss');
    expect((await postChat(key, body)).headers.get('x-modelgate-cache')).toBe('hit');

    const off = await owner.put('/api/token/', { id: token.id, response_cache: false });
    expect(off.success, off.message).toBe(true);
    expect((await owner.get(`/api/token/${token.id}`)).data.response_cache).toBe(false);
    expect((await postChat(key, body)).headers.get('x-modelgate-cache')).toBeNull();
  });

  it('bills a hit at the hit ratio and logs it with the tokens saved', async () => {
    const carol = await funded();
    await server.ctx.options.set('response_cache.hit_ratio', '0.5');
    try {
      const body = chatBody('billing of a hit');
      expect((await kept(() => postChat(carol, body))).headers.get('x-modelgate-cache')).toBe('miss');
      expect((await postChat(carol, body)).headers.get('x-modelgate-cache')).toBe('hit');
    } finally {
      await server.ctx.options.set('response_cache.hit_ratio', '0');
    }
    const dave = await funded();
    const body = chatBody('billing of a free hit');
    await kept(() => postChat(dave, body));
    expect((await postChat(dave, body)).headers.get('x-modelgate-cache')).toBe('hit');

    const [paid, hit] = await logRows(carol.id);
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
    const user = await server.ctx.db.db
      .selectFrom('users')
      .select(['used_quota', 'request_count'])
      .where('id', '=', carol.id)
      .executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBe(paid.quota + hit.quota);
    expect(Number(user.request_count)).toBe(2);

    const [, free] = await logRows(dave.id);
    expect(free.quota).toBe(0);
    expect(JSON.parse(free.other ?? '{}').response_cache_hit).toBe(true);
  });

  it('counts lookups, stores and saved tokens in /metrics', async () => {
    const m0 = await scrape(server.url, METRICS);
    const body = chatBody('metrics count this');
    await kept(() => postChat(alice, body));
    await postChat(alice, body);
    const rows = await logRows(alice.id);
    const paid = rows.at(-2)!;
    await expect
      .poll(async () => {
        const m1 = await scrape(server.url, METRICS);
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
    await server.ctx.options.set('response_cache.ttl_seconds', '1');
    try {
      const body = chatBody('short lived');
      expect((await kept(() => postChat(alice, body))).headers.get('x-modelgate-cache')).toBe('miss');
      // Hits until the second has passed, then a miss that goes upstream again.
      await expect
        .poll(async () => (await postChat(alice, body)).headers.get('x-modelgate-cache'), { timeout: 20_000 })
        .toBe('miss');
    } finally {
      await server.ctx.options.set('response_cache.ttl_seconds', '3600');
    }
  });
});
