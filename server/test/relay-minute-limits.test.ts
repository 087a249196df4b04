import { gzipSync } from 'node:zlib';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectJson } from '../src/relay/admit/inspect-request.ts';
import { durationText } from '../src/relay/admit/limits/headers.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { type MinuteClock, minuteClock } from './support/minute-clock.ts';
import { startUsageMock, type UsageMock } from './support/mock-usage.ts';
import { seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Requests and tokens per minute, per token (set in the console) and per group and model (the option
 * GroupModelRateLimit), driven with the official SDKs against a gateway on loopback. The mock upstream
 * reports the usage each test sets, so the windows' corrections and the headers' figures are exact. The windows
 * read a clock that moves only when a test moves it, so no figure depends on how fast the machine is.
 */
const MODEL = 'gpt-4o-mini';
const OTHER = 'gpt-4o';
const PROMPT = 'x'.repeat(48);
const MAX_TOKENS = 100;
const BODY = { model: MODEL, max_tokens: MAX_TOKENS, messages: [{ role: 'user' as const, content: PROMPT }] };
/** The tokens the gateway counts for BODY before the answer: its prompt estimate plus max_tokens. */
const ESTIMATE = inspectJson('chat', BODY).promptEstimate + MAX_TOKENS;
const RESET = /^(\d+ms|\d+(\.\d+)?s|\d+m\d+(\.\d+)?s)$/;

let seq = 0;
const uniq = (prefix: string) => `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}`;

describe('relay: requests and tokens per minute', () => {
  let server: TestServer;
  let mock: UsageMock;
  let admin: ConsoleClient;
  let clock: MinuteClock;

  const setOption = async (key: string, value: unknown) => {
    const res = await admin.put('/api/option/', { key, value: JSON.stringify(value) });
    expect(res.success, `${key}: ${res.message}`).toBe(true);
  };
  /** A user of `group` logged in to the console, who makes tokens there. */
  const newUser = (group = 'default') =>
    loginAs(server, { username: uniq('u'), quota: 1_000_000_000, group });
  const newToken = async (user: ConsoleClient, limits: { rpm_limit?: number; tpm_limit?: number } = {}) => {
    const r = await user.post('/api/token/', { name: uniq('t'), unlimited_quota: true, ...limits });
    expect(r.success, r.message).toBe(true);
    return { id: r.data[0].id as number, apiKey: `sk-${r.data[0].key}` };
  };
  const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const chat = (client: OpenAI, body: Partial<typeof BODY> = {}) =>
    client.chat.completions.create({ ...BODY, ...body }).withResponse();
  const refusal = (client: OpenAI, body: Partial<typeof BODY> = {}) =>
    chat(client, body).then(
      () => {
        throw new Error('expected a 429');
      },
      (e) => e as InstanceType<typeof OpenAI.APIError>,
    );

  beforeAll(async () => {
    mock = await startUsageMock();
    server = await startServer();
    admin = await loginAs(server, { username: 'root-limits', role: Role.Root });
    clock = minuteClock([server.ctx]);
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream',
      models: [MODEL, OTHER],
      group: 'default,team,crew,pool',
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('limits requests per minute per token, with OpenAI headers on every answer and on the 429', async () => {
    const user = await newUser();
    const token = await newToken(user, { rpm_limit: 3 });
    const client = sdk(token.apiKey);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { response } = await chat(client);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
      expect(response.headers.get('x-ratelimit-reset-requests')).toMatch(RESET);
      // No token cap anywhere: no token headers.
      expect(response.headers.get('x-ratelimit-limit-tokens')).toBeNull();
      remaining.push(response.headers.get('x-ratelimit-remaining-requests') ?? '');
    }
    expect(remaining).toEqual(['2', '1', '0']);

    clock.now += 1500;
    const calls = mock.calls;
    const err = await refusal(client);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.type).toBe('requests');
    expect(err.message).toMatch(
      /Rate limit reached for gpt-4o-mini on requests per min \(RPM\) of this API key/,
    );
    expect(err.message).toMatch(/Limit 3, Used 3, Requested 1/);
    const h = err.headers as Headers;
    // The first request leaves the window 58.5 s from now; retry-after rounds the wait up.
    expect(h.get('retry-after')).toBe('59');
    expect(h.get('x-ratelimit-limit-requests')).toBe('3');
    expect(h.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(h.get('x-ratelimit-reset-requests')).toBe('58.5s');
    expect(mock.calls).toBe(calls);

    // The owner's other token, and the same token's owner through another token, have windows of their own.
    const other = await newToken(user);
    expect((await chat(sdk(other.apiKey))).data.choices[0].message.content).toBe('ok');
  });

  it('limits tokens per minute per token, corrected by the usage the answers report', async () => {
    mock.usage = { prompt: 10, completion: 10 };
    const user = await newUser();
    const tpm = 1000;
    const token = await newToken(user, { tpm_limit: tpm });
    const client = sdk(token.apiKey);
    // Each request is counted at ESTIMATE tokens until its answer says it used 20: far more than
    // tpm / ESTIMATE requests pass one after another.
    let last: Headers | undefined;
    const n = 20;
    expect(n * ESTIMATE).toBeGreaterThan(tpm);
    for (let i = 0; i < n; i++) {
      last = (await chat(client)).response.headers;
      await clock.corrected();
    }
    expect(last?.get('x-ratelimit-limit-tokens')).toBe(String(tpm));
    // Before the last answer: 19 corrected requests and the last one's estimate.
    expect(last?.get('x-ratelimit-remaining-tokens')).toBe(String(tpm - 19 * 20 - ESTIMATE));
    expect(last?.get('x-ratelimit-reset-tokens')).toMatch(RESET);
    expect(last?.get('x-ratelimit-limit-requests')).toBeNull();

    // A request that would pass the cap is refused with the wait until enough tokens leave the window.
    const big = await refusal(client, { max_tokens: tpm - n * 20 });
    expect(big).toBeInstanceOf(OpenAI.RateLimitError);
    expect(big.type).toBe('tokens');
    expect(big.message).toMatch(
      new RegExp(`Limit ${tpm}, Used ${n * 20}, Requested ${ESTIMATE - MAX_TOKENS + tpm - n * 20}`),
    );
    const h = big.headers as Headers;
    expect(h.get('x-ratelimit-remaining-tokens')).toBe(String(tpm - n * 20));
    // Every request came at the same instant: room comes back when they leave the window together.
    expect(h.get('retry-after')).toBe('60');
    expect(h.get('x-ratelimit-reset-tokens')).toMatch(RESET);
  });

  it('keeps the tokens admitted in a minute within the limit plus one request under 100 parallel requests', async () => {
    mock.usage = { prompt: ESTIMATE - MAX_TOKENS, completion: MAX_TOKENS };
    mock.delayMs = 200;
    try {
      const user = await newUser();
      const tpm = 2000;
      const token = await newToken(user, { tpm_limit: tpm });
      const client = sdk(token.apiKey);
      const results = await Promise.allSettled(Array.from({ length: 100 }, () => chat(client)));
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter(
        (r) => r.status === 'rejected' && r.reason instanceof OpenAI.RateLimitError,
      );
      expect(ok.length + refused.length).toBe(100);
      const used = ok.reduce(
        (sum, r) =>
          sum +
          (r as PromiseFulfilledResult<Awaited<ReturnType<typeof chat>>>).value.data.usage!.total_tokens,
        0,
      );
      expect(used).toBeLessThanOrEqual(tpm + ESTIMATE);
      // The cap is used, not just respected: refusals start only when the next request would pass it.
      expect(ok.length).toBeGreaterThanOrEqual(Math.floor(tpm / ESTIMATE));
    } finally {
      mock.delayMs = 0;
    }
  });

  it('applies group and model limits per user, shared by the group, and over all models', async () => {
    mock.usage = { prompt: 10, completion: 10 };
    await setOption('GroupModelRateLimit', {
      team: { [MODEL]: { rpm: 2 } },
      crew: { [MODEL]: { rpm: 2, scope: 'group' } },
      pool: { '*': { rpm: 3 }, [OTHER]: { tpm: 100_000 } },
    });
    try {
      // team: each user has 2 requests a minute for MODEL; other models are free.
      const [a, b] = [await newUser('team'), await newUser('team')];
      const ca = sdk((await newToken(a)).apiKey);
      const cb = sdk((await newToken(b)).apiKey);
      await chat(ca);
      const { response } = await chat(ca);
      expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      const err = await refusal(ca);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect(err.message).toMatch(/of group team, gpt-4o-mini, per user/);
      await chat(cb);
      const free = await chat(ca, { model: OTHER } as Partial<typeof BODY>);
      expect(free.response.headers.get('x-ratelimit-limit-requests')).toBeNull();

      // crew: the group's users share 2 requests a minute.
      const [c, d] = [await newUser('crew'), await newUser('crew')];
      const cc = sdk((await newToken(c)).apiKey);
      const cd = sdk((await newToken(d)).apiKey);
      await chat(cc);
      await chat(cd);
      expect((await refusal(cc)).message).toMatch(/of group crew, gpt-4o-mini, shared by the group/);
      expect((await refusal(cd)).status).toBe(429);

      // pool: "*" counts both models together; OTHER also has its own token cap, so both header sets show.
      const e = sdk((await newToken(await newUser('pool'))).apiKey);
      await chat(e);
      const both = await chat(e, { model: OTHER } as Partial<typeof BODY>);
      expect(both.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
      expect(both.response.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
      await chat(e);
      expect((await refusal(e, { model: OTHER } as Partial<typeof BODY>)).message).toMatch(
        /of group pool, all models, per user/,
      );
    } finally {
      await setOption('GroupModelRateLimit', {});
    }
  });

  it('treats 0 as no limit, for tokens and for group entries', async () => {
    await setOption('GroupModelRateLimit', { default: { [MODEL]: { rpm: 0, tpm: 0 } } });
    try {
      const token = await newToken(await newUser(), { rpm_limit: 0, tpm_limit: 0 });
      const client = sdk(token.apiKey);
      for (let i = 0; i < 12; i++) {
        const { response } = await chat(client);
        expect(response.headers.get('x-ratelimit-limit-requests')).toBeNull();
        expect(response.headers.get('x-ratelimit-limit-tokens')).toBeNull();
      }
    } finally {
      await setOption('GroupModelRateLimit', {});
    }
  });

  it('answers the 429 in the caller protocol: Anthropic, Gemini, a stream, and the Fastify route', async () => {
    const token = await newToken(await newUser(), { rpm_limit: 1 });
    const stream = await sdk(token.apiKey)
      .chat.completions.create({ ...BODY, stream: true })
      .withResponse();
    expect(stream.response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    let text = '';
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('ok');

    const anthropic = new Anthropic({ apiKey: token.apiKey, baseURL: server.url, maxRetries: 0 });
    const a = await anthropic.messages
      .create({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(a).toBeInstanceOf(Anthropic.RateLimitError);
    expect(a.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(a.headers.get('x-ratelimit-limit-requests')).toBe('1');

    const gemini = new GoogleGenAI({ apiKey: token.apiKey, httpOptions: { baseUrl: server.url } });
    const g = await gemini.models.generateContent({ model: MODEL, contents: 'hi' }).catch((e) => e);
    expect(g.status).toBe(429);
    expect(String(g.message)).toMatch(/RESOURCE_EXHAUSTED/);

    // A gzip body is served by the Fastify route instead of the fast lane: same answer and headers.
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.apiKey}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body: gzipSync(JSON.stringify(BODY)),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  it('lets requests through again once the window has moved past them', async () => {
    const client = sdk((await newToken(await newUser(), { rpm_limit: 2 })).apiKey);
    await chat(client);
    clock.now += 30_000;
    await chat(client);
    const first = await refusal(client);
    // The oldest request leaves the window in 30 s.
    expect((first.headers as Headers).get('retry-after')).toBe('30');
    expect((first.headers as Headers).get('x-ratelimit-reset-requests')).toBe('30s');
    clock.now += 30_000;
    const { response } = await chat(client);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(response.headers.get('x-ratelimit-reset-requests')).toBe('30s');
    clock.now += 60_001;
    expect((await chat(client)).response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
  });

  it('refuses bad limits on tokens and in the option with a clear 400 and changes nothing', async () => {
    const user = await newUser();
    const token = await newToken(user, { rpm_limit: 5, tpm_limit: 5000 });
    for (const [field, value, message] of [
      ['rpm_limit', -1, /rpm_limit must be 0 \(no limit\) or more/],
      ['tpm_limit', 1.5, /tpm_limit must be a whole number/],
      ['rpm_limit', '10', /rpm_limit must be a whole number/],
      ['tpm_limit', 2_000_000_000, /tpm_limit must be at most 1000000000/],
    ] as const) {
      const put = await user.put('/api/token/', { id: token.id, [field]: value });
      expect(put.status, `${field}=${value}`).toBe(400);
      expect(put.message).toMatch(message);
      const post = await user.post('/api/token/', { name: 'bad', [field]: value });
      expect(post.status).toBe(400);
    }
    const view = await user.get(`/api/token/${token.id}`);
    expect(view.data).toMatchObject({ rpm_limit: 5, tpm_limit: 5000 });

    await setOption('GroupModelRateLimit', { default: { [MODEL]: { rpm: 7 } } });
    for (const [value, message] of [
      [[], /expected a JSON object of group/],
      [{ vip: [10, 0] }, /group vip: expected an object of model/],
      [{ vip: { [MODEL]: { rpm: -1 } } }, /group vip, model gpt-4o-mini: rpm must be 0 \(no limit\) or more/],
      [{ vip: { [MODEL]: { tpm: 'many' } } }, /tpm must be a whole number/],
      [{ vip: { [MODEL]: { rpn: 5 } } }, /unknown field rpn \(use rpm, tpm and scope\)/],
      [{ vip: { '*': { rpm: 5, scope: 'team' } } }, /scope must be "user" or "group"/],
      [{ '': { '*': { rpm: 5 } } }, /a group name must not be empty/],
    ] as const) {
      const res = await admin.put('/api/option/', {
        key: 'GroupModelRateLimit',
        value: JSON.stringify(value),
      });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.message).toMatch(message);
    }
    expect(server.ctx.options.json('GroupModelRateLimit')).toEqual({ default: { [MODEL]: { rpm: 7 } } });
    await setOption('GroupModelRateLimit', {});
  });

  it('writes reset times the way OpenAI does', () => {
    expect(durationText(0)).toBe('0s');
    expect(durationText(120)).toBe('120ms');
    expect(durationText(1000)).toBe('1s');
    expect(durationText(8640)).toBe('8.64s');
    expect(durationText(360_000)).toBe('6m0s');
    expect(durationText(61_500)).toBe('1m1.5s');
    expect(durationText(3_723_000)).toBe('1h2m3s');
  });
});

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`token rate limits stored on ${engine.name}`, () => {
    let server: TestServer;
    let mock: UsageMock;
    beforeAll(async () => {
      mock = await startUsageMock();
      server = await startServer({ db: engine });
      await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-upstream', models: [MODEL] });
    });
    afterAll(async () => {
      await server?.close();
      await mock?.close();
    });

    it('saves, lists and edits rpm_limit and tpm_limit, and the relay follows an edit', async () => {
      const user = await loginAs(server, { username: uniq('u'), quota: 1_000_000_000 });
      const made = await user.post('/api/token/', { name: 'limited', rpm_limit: 2, tpm_limit: 900_000_000 });
      expect(made.success, made.message).toBe(true);
      const id = made.data[0].id;
      expect(made.data[0]).toMatchObject({ rpm_limit: 2, tpm_limit: 900_000_000 });
      const plain = await user.post('/api/token/', { name: 'plain' });
      expect(plain.data[0]).toMatchObject({ rpm_limit: 0, tpm_limit: 0 });
      const list = await user.get('/api/token/?p=0&size=10');
      expect(list.data.find((t: { id: number }) => t.id === id)).toMatchObject({ rpm_limit: 2 });

      const client = new OpenAI({
        apiKey: `sk-${made.data[0].key}`,
        baseURL: `${server.url}/v1`,
        maxRetries: 0,
      });
      const first = await client.chat.completions.create(BODY).withResponse();
      expect(first.response.headers.get('x-ratelimit-limit-requests')).toBe('2');
      expect(first.response.headers.get('x-ratelimit-limit-tokens')).toBe('900000000');

      const edit = await user.put('/api/token/', { id, rpm_limit: 1, tpm_limit: 0 });
      expect(edit.success, edit.message).toBe(true);
      expect(edit.data).toMatchObject({ rpm_limit: 1, tpm_limit: 0 });
      expect((await user.get(`/api/token/${id}`)).data).toMatchObject({ rpm_limit: 1, tpm_limit: 0 });
      const err = await client.chat.completions.create(BODY).catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect(err.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    });
  });
}
