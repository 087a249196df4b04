import { generateKeyPairSync } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseServiceAccount } from '../src/relay/providers/vertex/key.ts';
import { familyOf, regionOf, vertexClaudeId } from '../src/relay/providers/vertex/models.ts';
import { claudeCodeAsk, withModelBeta } from './support/cloud-betas.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import {
  anthropicAnswer,
  expectedQuota,
  geminiAnswer,
  type RecordedAnswer,
} from './support/fixture-answers.ts';
import { formatClient } from './support/format-clients.ts';
import { embeddingOf, startVertexMock, type VertexMock } from './support/mock-vertex.ts';
import { flushLedger, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Google Vertex AI (channel type 41) against a mock of Google's token endpoint and of Vertex's prediction API.
 * The token endpoint verifies the service account's RS256-signed JWT with its public key, and the API takes
 * only the bearer tokens it issued, for the account's project. Channels are made by an admin in the console
 * (so the key is checked); then the OpenAI client to a Gemini model and to a Claude model, plain and streamed,
 * the Anthropic SDK relayed to the Claude model, tools and the Gemini SDK, embeddings, quota to the unit;
 * token reuse, renewal before expiry, a failing and a refusing token endpoint; upstream errors in each
 * client's protocol; the channel test.
 */
const GEMINI = 'gemini-2.5-flash';
const CLAUDE = 'claude-sonnet-4-5-20250929';
const CLAUDE_V2 = 'claude-3-5-sonnet-20241022';
const CLAUDE_MISSING = 'claude-3-opus-20240229';
const GEMINI_ERROR = 'gemini-error';
const EMBED = 'text-embedding-005';
const GEMINI_EMBED = 'gemini-embedding-001';
const RENEWED = 'gemini-renewed';
const FLAKY = 'gemini-flaky';
const FORGED = 'gemini-forged';
const PRICED = [
  GEMINI,
  CLAUDE,
  CLAUDE_V2,
  CLAUDE_MISSING,
  GEMINI_ERROR,
  EMBED,
  GEMINI_EMBED,
  RENEWED,
  FLAKY,
  FORGED,
];

const MAIN_EMAIL = 'relay@proj-main.iam.gserviceaccount.com';
const RENEW_EMAIL = 'renew@proj-renew.iam.gserviceaccount.com';
const FLAKY_EMAIL = 'flaky@proj-flaky.iam.gserviceaccount.com';
const FORGED_EMAIL = 'forged@proj-forged.iam.gserviceaccount.com';

describe('provider: Google Vertex AI', () => {
  let server: TestServer;
  let mock: VertexMock;
  let admin: ConsoleClient;
  let apiKey: string;
  let userId: number;
  let tokenId: number;
  let mainChannel: number;
  /** The private keys of the test accounts: no answer or error may quote them. */
  const privateKeys: string[] = [];

  const openai = () => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });

  async function createChannel(o: {
    name: string;
    key: string;
    models: string[];
    mapping?: Record<string, string>;
    setting?: Record<string, unknown>;
    /** The console's region field: one region, or JSON of model -> region with a default. */
    other?: string;
  }) {
    return admin.post('/api/channel/', {
      type: 41,
      name: o.name,
      key: o.key,
      base_url: mock.url,
      other: o.other ?? 'us-central1',
      models: o.models,
      group: 'default',
      auto_ban: 0,
      ...(o.mapping ? { model_mapping: JSON.stringify(o.mapping) } : {}),
      ...(o.setting ? { setting: JSON.stringify(o.setting) } : {}),
    });
  }

  function account(o: Parameters<VertexMock['account']>[0]) {
    const a = mock.account(o);
    privateKeys.push(a.privateKeyPem);
    return a.key;
  }

  beforeAll(async () => {
    mock = await startVertexMock();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const { ctx } = server;
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await seedUser(ctx, { quota: 100_000_000 });
    userId = user.id;
    const token = await seedToken(ctx, { userId, remain: 50_000_000 });
    apiKey = token.apiKey;
    tokenId = token.id;
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(PRICED.map((m) => [m, n])));
    await ctx.options.set('ModelRatio', ratio(1));
    await ctx.options.set('CompletionRatio', ratio(2));
    await ctx.options.set('CacheRatio', ratio(0.1));
    await ctx.options.set('CreateCacheRatio', ratio(1.25));

    const main = await createChannel({
      name: 'vertex-main',
      key: account({ email: MAIN_EMAIL, project: 'proj-main' }),
      models: [GEMINI, CLAUDE, CLAUDE_V2, CLAUDE_MISSING, GEMINI_ERROR, EMBED, GEMINI_EMBED],
      other: JSON.stringify({ default: 'us-central1', [CLAUDE]: 'us-east5' }),
    });
    expect(main.success, main.message).toBe(true);
    mainChannel = main.data.ids[0];
    const renew = await createChannel({
      name: 'vertex-global',
      key: account({ email: RENEW_EMAIL, project: 'proj-renew' }),
      models: [RENEWED],
      mapping: { [RENEWED]: GEMINI },
      // The channel setting `region` overrides the console's region field.
      other: 'europe-west1',
      setting: { region: 'global' },
    });
    expect(renew.success, renew.message).toBe(true);
    const flaky = await createChannel({
      name: 'vertex-flaky-token',
      key: account({ email: FLAKY_EMAIL, project: 'proj-flaky', tokenUri: mock.flakyTokenUri }),
      models: [FLAKY],
      mapping: { [FLAKY]: GEMINI },
    });
    expect(flaky.success, flaky.message).toBe(true);
    const forged = await createChannel({
      name: 'vertex-wrong-private-key',
      key: account({ email: FORGED_EMAIL, project: 'proj-forged', forged: true }),
      models: [FORGED],
      mapping: { [FORGED]: GEMINI },
    });
    expect(forged.success, forged.message).toBe(true);
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function lastLogId(): Promise<number> {
    await flushLedger(server.ctx);
    const row = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  async function rowsAfter(id: number) {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('id', '>', id)
      .where('type', '=', 2)
      .execute();
  }

  /** The user's used quota and the token's remaining quota. */
  async function balances() {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select('remain_quota')
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    return { used: Number(u.used_quota), remain: Number(t.remain_quota) };
  }

  /** Runs a call and checks it was billed once, at the recording's usage, on the user and on the token. */
  async function billedAs<T>(usage: RecordedAnswer['usage'], call: () => Promise<T>) {
    const before = await lastLogId();
    const was = await balances();
    const result = await call();
    const rows = await rowsAfter(before);
    expect(rows).toHaveLength(1);
    expect(rows[0].prompt_tokens).toBe(usage.prompt);
    expect(rows[0].completion_tokens).toBe(usage.output);
    const quota = expectedQuota(usage);
    expect(rows[0].quota).toBe(quota);
    const now = await balances();
    expect(now.used - was.used).toBe(quota);
    expect(was.remain - now.remain).toBe(quota);
    return result;
  }

  const lastCall = () => mock.requests.at(-1);

  async function failureOf<E>(call: Promise<unknown>): Promise<E> {
    try {
      await call;
    } catch (err) {
      return err as E;
    }
    throw new Error('the call was expected to fail');
  }

  /** No private key, key fragment or access token in a message a client gets. */
  function expectNoSecret(message: string) {
    expect(message).not.toContain('PRIVATE KEY');
    for (const pem of privateKeys) {
      const body = pem.split('\n')[1];
      expect(message).not.toContain(body);
    }
    expect(message).not.toMatch(/ya29\./);
    expect(message).not.toMatch(/eyJ[\w-]+\.eyJ/);
  }

  it('refuses keys that are not a service-account JSON at channel save, naming what is missing', async () => {
    const good = JSON.parse(
      mock.account({ email: 'spare@proj-x.iam.gserviceaccount.com', project: 'proj-x' }).key,
    );
    const without = (field: string) => {
      const copy = { ...good };
      delete copy[field];
      return JSON.stringify(copy);
    };
    const cases: Array<[string, string]> = [
      [without('private_key'), 'private_key is missing'],
      [without('client_email'), 'client_email is missing'],
      [without('project_id'), 'project_id is missing'],
      [JSON.stringify({ ...good, private_key: 'not a pem' }), 'private_key is not a PEM private key'],
      ['AIzaSyA-an-api-key-instead', 'the key is not JSON'],
      ['["a", "b"]', 'the key is not a JSON object'],
    ];
    for (const [key, why] of cases) {
      const r = await createChannel({ name: 'bad-key', key, models: [GEMINI] });
      expect(r.success, key.slice(0, 40)).toBe(false);
      expect(r.message).toContain('service-account JSON key with client_email, private_key and project_id');
      expect(r.message).toContain(why);
      expect(r.message).not.toContain('PRIVATE KEY');
    }
  });

  it('exchanges a signed JWT for a token (the mock verifies it) and calls Gemini for an OpenAI client', async () => {
    const recorded = geminiAnswer('google/generate-content/text.json');
    const answer = await billedAs(recorded.usage, () =>
      openai().chat.completions.create({
        model: GEMINI,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'How many r are in strawberry?' },
        ],
      }),
    );
    expect(answer.choices[0].message.content).toBe(recorded.text);
    expect(answer.usage?.prompt_tokens).toBe(recorded.usage.prompt);
    expect(answer.usage?.completion_tokens).toBe(recorded.usage.output);
    expect(mock.exchanges.get(MAIN_EMAIL)).toBe(1);
    const call = lastCall();
    expect(call?.path).toBe(
      '/v1/projects/proj-main/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(call?.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(call?.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'How many r are in strawberry?' }] }],
    });
    // The gateway's default safety settings, as on Gemini channels.
    expect(call?.body.safetySettings).toContainEqual({
      category: 'HARM_CATEGORY_HARASSMENT',
      threshold: 'OFF',
    });
  });

  it('streams Gemini to an OpenAI client over SSE, with usage', async () => {
    const recorded = geminiAnswer('google/generate-content/text.chunks.txt');
    const text = await billedAs(recorded.usage, async () => {
      const stream = await openai().chat.completions.create({
        model: GEMINI,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'How many r are in strawberry?' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(usage?.prompt_tokens).toBe(recorded.usage.prompt);
      expect(usage?.completion_tokens).toBe(recorded.usage.output);
      return text;
    });
    expect(text).toBe(recorded.text);
    expect(lastCall()?.action).toBe('streamGenerateContent');
    expect(lastCall()?.query).toBe('alt=sse');
  });

  it('calls Claude at rawPredict in its own region for an OpenAI client, the body as Vertex wants it', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const answer = await billedAs(recorded.usage, () =>
      openai().chat.completions.create({
        model: CLAUDE,
        max_tokens: 64,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello, how are you?' },
        ],
      }),
    );
    expect(answer.choices[0].message.content).toBe(recorded.text);
    expect(answer.usage?.prompt_tokens).toBe(recorded.usage.prompt);
    expect(answer.usage?.completion_tokens).toBe(recorded.usage.output);
    const call = lastCall();
    expect(call?.path).toBe(
      '/v1/projects/proj-main/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    );
    expect(call?.body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user' }],
    });
    expect(call?.body).not.toHaveProperty('model');
    expect(call?.headers).not.toHaveProperty('x-api-key');
  });

  it('streams Claude to an OpenAI client, and maps Anthropic names to Vertex ids', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.chunks.txt');
    const text = await billedAs(recorded.usage, async () => {
      const stream = await openai().chat.completions.create({
        model: CLAUDE_V2,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hello, how are you?' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(usage?.prompt_tokens).toBe(recorded.usage.prompt);
      expect(usage?.completion_tokens).toBe(recorded.usage.output);
      return text;
    });
    expect(text).toBe(recorded.text);
    expect(lastCall()?.path).toBe(
      '/v1/projects/proj-main/locations/us-central1/publishers/anthropic/models/claude-3-5-sonnet-v2@20241022:streamRawPredict',
    );
    expect(lastCall()?.body.stream).toBe(true);
  });

  it('relays the Anthropic SDK on /v1/messages to Claude, plain and streamed, its beta header passed on', async () => {
    const plain = anthropicAnswer('anthropic/messages/text.json');
    const msg = await billedAs(plain.usage, () =>
      anthropic().messages.create(
        { model: CLAUDE, max_tokens: 128, messages: [{ role: 'user', content: 'Hello, how are you?' }] },
        { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } },
      ),
    );
    expect(msg.content).toEqual([{ type: 'text', text: plain.text }]);
    expect(msg.usage.input_tokens).toBe(plain.usage.prompt);
    expect(msg.usage.output_tokens).toBe(plain.usage.output);
    expect(lastCall()?.action).toBe('rawPredict');
    expect(lastCall()?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    expect(lastCall()?.headers).not.toHaveProperty('anthropic-version');
    expect(lastCall()?.body.anthropic_version).toBe('vertex-2023-10-16');

    const streamed = anthropicAnswer('anthropic/messages/text.chunks.txt');
    const final = await billedAs(streamed.usage, async () => {
      const stream = anthropic().messages.stream({
        model: CLAUDE,
        max_tokens: 128,
        messages: [{ role: 'user', content: 'Hello, how are you?' }],
      });
      let deltas = '';
      stream.on('text', (t) => {
        deltas += t;
      });
      const final = await stream.finalMessage();
      expect(deltas).toBe(streamed.text);
      return final;
    });
    expect(final.content).toEqual([{ type: 'text', text: streamed.text }]);
    expect(final.usage.output_tokens).toBe(streamed.usage.output);
    expect(lastCall()?.action).toBe('streamRawPredict');
  });

  it("keeps Claude Code's flags Vertex refuses and structured output off Claude's call; an operator's flag goes as set", async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const msg = await withModelBeta(server.ctx, CLAUDE, 'future-feature-2027-01-01', () =>
      billedAs(recorded.usage, () => claudeCodeAsk(anthropic(), CLAUDE, 'web-search-2025-03-05')),
    );
    expect(msg.content).toEqual([{ type: 'text', text: recorded.text }]);
    expect(lastCall()?.headers['anthropic-beta']).toBe(
      'interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19,web-search-2025-03-05,future-feature-2027-01-01',
    );
    expect(lastCall()?.body).not.toHaveProperty('output_format');
  });

  it('streams Gemini tool calls to an OpenAI client, Claude tool calls too, and relays the Gemini SDK', async () => {
    const geminiTools = geminiAnswer('google/generate-content/function-call.chunks.txt');
    expect(geminiTools.calls.length).toBeGreaterThan(0);
    const a = await billedAs(geminiTools.usage, () =>
      formatClient('openai', server.url, apiKey).ask(GEMINI, { stream: true, tools: true }),
    );
    expect(a.calls).toEqual(geminiTools.calls);
    expect(lastCall()?.body.tools?.[0]?.functionDeclarations?.[0]).toMatchObject({ name: 'get_weather' });

    const claudeTools = anthropicAnswer('anthropic/messages/tool-use-parallel.chunks.txt');
    const b = await billedAs(claudeTools.usage, () =>
      formatClient('openai', server.url, apiKey).ask(CLAUDE, { stream: true, tools: true }),
    );
    expect(b.calls).toEqual(claudeTools.calls);
    expect(lastCall()?.body.tools?.[0]).toMatchObject({
      name: 'get_weather',
      input_schema: { type: 'object' },
    });

    const text = geminiAnswer('google/generate-content/text.json');
    const g = await billedAs(text.usage, () => formatClient('gemini', server.url, apiKey).ask(GEMINI, {}));
    expect(g.text).toBe(text.text);
    expect(lastCall()?.action).toBe('generateContent');
  });

  it('answers embeddings from :predict with the token counts Vertex reports', async () => {
    const inputs = ['hello world', 'the quick brown fox'];
    const before = await lastLogId();
    const r = await openai().embeddings.create({ model: EMBED, input: inputs });
    expect(r.data.map((d) => d.embedding)).toEqual(inputs.map(embeddingOf));
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    expect(r.usage.prompt_tokens).toBe(6);
    expect(lastCall()?.path).toBe(
      '/v1/projects/proj-main/locations/us-central1/publishers/google/models/text-embedding-005:predict',
    );
    expect(lastCall()?.body).toEqual({ instances: inputs.map((content) => ({ content })) });
    let rows = await rowsAfter(before);
    expect(rows).toHaveLength(1);
    expect(rows[0].prompt_tokens).toBe(6);
    expect(rows[0].quota).toBe(6);

    // gemini-embedding-001 takes one text per call: one call per input, answered together in order.
    const calls = mock.requests.length;
    const since = await lastLogId();
    const g = await openai().embeddings.create({ model: GEMINI_EMBED, input: [...inputs, 'one more'] });
    expect(g.data.map((d) => d.embedding)).toEqual([...inputs, 'one more'].map(embeddingOf));
    expect(g.usage.prompt_tokens).toBe(8);
    const made = mock.requests.slice(calls);
    expect(made).toHaveLength(3);
    expect(made.map((c) => c.body.instances.length)).toEqual([1, 1, 1]);
    rows = await rowsAfter(since);
    expect(rows).toHaveLength(1);
    expect(rows[0].quota).toBe(8);
  });

  it("maps Vertex's errors into each client's protocol without secrets, billing nothing", async () => {
    const before = await lastLogId();
    const was = await balances();
    const e1 = await failureOf<InstanceType<typeof OpenAI.APIError>>(
      openai().chat.completions.create({ model: GEMINI_ERROR, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(e1).toBeInstanceOf(OpenAI.APIError);
    expect(e1.status).toBe(429);
    expect(e1.message).toContain('You exceeded your current quota');

    const e2 = await failureOf<InstanceType<typeof Anthropic.APIError>>(
      anthropic().messages.create({
        model: GEMINI_ERROR,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(e2).toBeInstanceOf(Anthropic.APIError);
    expect(e2.status).toBe(429);
    expect((e2.error as { error?: { type?: string } })?.error?.type).toBe('rate_limit_error');

    // A Claude model the project cannot use: Google's 404 NOT_FOUND, to the Anthropic SDK and an OpenAI stream.
    const e3 = await failureOf<InstanceType<typeof Anthropic.APIError>>(
      anthropic().messages.create({
        model: CLAUDE_MISSING,
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(e3).toBeInstanceOf(Anthropic.APIError);
    expect(e3.status).toBe(404);
    expect(e3.message).toContain('claude-3-opus@20240229` not found');
    const e4 = await failureOf<InstanceType<typeof OpenAI.APIError>>(
      openai().chat.completions.create({
        model: CLAUDE_MISSING,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(e4).toBeInstanceOf(OpenAI.APIError);
    expect(e4.status).toBe(404);

    for (const e of [e1, e2, e3, e4]) {
      expectNoSecret(e.message);
      expect(e.message).toMatch(/request id/);
    }
    expect(await rowsAfter(before)).toHaveLength(0);
    expect((await balances()).used).toBe(was.used);
  });

  it('reuses one token for concurrent and later calls, and renews it five minutes before it expires', async () => {
    const ask = () =>
      openai().chat.completions.create({ model: RENEWED, messages: [{ role: 'user', content: 'hi' }] });
    const answers = await Promise.all([ask(), ask(), ask(), ask(), ask()]);
    for (const a of answers)
      expect(a.choices[0].message.content).toBe(geminiAnswer('google/generate-content/text.json').text);
    expect(mock.exchanges.get(RENEW_EMAIL)).toBe(1);
    // The `global` region has no region in the host and `locations/global` in the path.
    expect(lastCall()?.path).toBe(
      '/v1/projects/proj-renew/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    await ask();
    expect(mock.exchanges.get(RENEW_EMAIL)).toBe(1);
    // The main channel's token has served every call above on one exchange.
    expect(mock.exchanges.get(MAIN_EMAIL)).toBe(1);

    const start = Date.now();
    const now = vi.spyOn(Date, 'now');
    now.mockImplementation(() => start + 54 * 60_000);
    await ask();
    expect(mock.exchanges.get(RENEW_EMAIL)).toBe(1);
    now.mockImplementation(() => start + 56 * 60_000);
    await ask();
    expect(mock.exchanges.get(RENEW_EMAIL)).toBe(2);
    await ask();
    expect(mock.exchanges.get(RENEW_EMAIL)).toBe(2);
  });

  it('fails cleanly when the token endpoint fails, and exchanges again on the next call', async () => {
    mock.flaky = 1;
    const calls = mock.tokenCalls;
    const before = await lastLogId();
    const err = await failureOf<InstanceType<typeof OpenAI.APIError>>(
      openai().chat.completions.create({ model: FLAKY, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(502);
    // The endpoint's answer is for the log and the console, not for API callers (token-exchange-errors.test.ts).
    expect(err.message).toContain('the Vertex AI access token exchange failed');
    expect(err.message).not.toContain('Backend Error');
    expectNoSecret(err.message);
    expect(mock.tokenCalls).toBe(calls + 1);
    expect(mock.exchanges.get(FLAKY_EMAIL)).toBeUndefined();
    expect(await rowsAfter(before)).toHaveLength(0);

    const ok = await openai().chat.completions.create({
      model: FLAKY,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(ok.choices[0].message.content).toBe(geminiAnswer('google/generate-content/text.json').text);
    expect(mock.tokenCalls).toBe(calls + 2);
    expect(mock.exchanges.get(FLAKY_EMAIL)).toBe(1);
  });

  it('answers the gateway’s own 503 when Google refuses the JWT (a key that is not the account’s), and never caches it', async () => {
    const calls = mock.tokenCalls;
    const apiCalls = mock.requests.length;
    for (let i = 0; i < 2; i++) {
      const err = await failureOf<InstanceType<typeof OpenAI.APIError>>(
        openai().chat.completions.create({ model: FORGED, messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(err.status).toBe(503);
      expect(err.message).toContain('refused the credentials of the channel');
      expect(err.message).not.toContain('Invalid JWT Signature.');
      expectNoSecret(err.message);
    }
    expect(mock.tokenCalls).toBe(calls + 2);
    expect(mock.requests.length).toBe(apiCalls);
  });

  it('tests a channel through the console', async () => {
    const test = await admin.get(`/api/channel/test/${mainChannel}`);
    expect(test.success, test.message).toBe(true);
    expect(lastCall()?.path).toMatch(/\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/);
    const claude = await admin.get(`/api/channel/test/${mainChannel}?model=${CLAUDE}`);
    expect(claude.success, claude.message).toBe(true);
    expect(lastCall()?.path).toMatch(
      /\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:rawPredict$/,
    );
    const embed = await admin.get(`/api/channel/test/${mainChannel}?model=${EMBED}`);
    expect(embed.success, embed.message).toBe(true);
    expect(lastCall()?.action).toBe('predict');
    expect(lastCall()?.body).toEqual({ instances: [{ content: 'hello world' }] });
    const broken = await admin.get(`/api/channel/test/${mainChannel}?model=${GEMINI_ERROR}`);
    expect(broken.success).toBe(false);
    expect(broken.message).toContain('You exceeded your current quota');
  });
});

describe('vertex: keys, model ids and regions', () => {
  it('reads a service account, defaulting token_uri', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const sa = parseServiceAccount(
      JSON.stringify({
        client_email: 'a@p.iam.gserviceaccount.com',
        private_key: pem,
        project_id: 'my-proj-1',
      }),
    );
    expect(sa.tokenUri).toBe('https://oauth2.googleapis.com/token');
    expect(sa.projectId).toBe('my-proj-1');
    const escaped = parseServiceAccount(
      JSON.stringify({
        client_email: 'a@p.iam.gserviceaccount.com',
        private_key: pem.replace(/\n/g, '\\n'),
        project_id: 'my-proj-1',
      }),
    );
    expect(escaped.privateKey.asymmetricKeyType).toBe('rsa');
    expect(() =>
      parseServiceAccount(JSON.stringify({ client_email: 'a@b', private_key: pem, project_id: 'p/../x' })),
    ).toThrow(/project_id is not a Google Cloud project id/);
  });

  it('maps Anthropic names to Vertex ids and tells model families apart', () => {
    expect(vertexClaudeId('claude-3-5-sonnet-20241022')).toBe('claude-3-5-sonnet-v2@20241022');
    expect(vertexClaudeId('claude-3-5-sonnet-20240620')).toBe('claude-3-5-sonnet@20240620');
    expect(vertexClaudeId('claude-opus-4-1-20250805')).toBe('claude-opus-4-1@20250805');
    expect(vertexClaudeId('claude-haiku-4-5@20251001')).toBe('claude-haiku-4-5@20251001');
    expect(vertexClaudeId('claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
    expect(familyOf('claude-sonnet-4-5')).toBe('claude');
    expect(familyOf('gemini-2.5-pro')).toBe('gemini');
    expect(familyOf('text-embedding-005')).toBe('embedding');
    expect(familyOf('gemini-embedding-001')).toBe('embedding');
  });

  it('reads the region from the setting, per model, then from other, then global', () => {
    expect(regionOf(undefined, '', ['m'])).toBe('global');
    expect(regionOf('europe-west1', '', ['m'])).toBe('europe-west1');
    expect(regionOf({ default: 'us-central1', m: 'us-east5' }, '', ['m'])).toBe('us-east5');
    expect(regionOf('{"default":"asia-northeast1"}', '', ['m'])).toBe('asia-northeast1');
    expect(regionOf(undefined, 'us-east5', ['m'])).toBe('us-east5');
    expect(regionOf(undefined, '{"x":"us-east5","default":"europe-west4"}', ['m'])).toBe('europe-west4');
    expect(regionOf('evil.example.com/', '', ['m'])).toBeNull();
  });
});
