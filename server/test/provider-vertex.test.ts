import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as cloud from './support/cloud-claude.ts';
import { anthropicAnswer, geminiAnswer } from './support/fixture-answers.ts';
import { embeddingOf, startVertexMock, type VertexMock } from './support/mock-vertex.ts';
import { type ClientError, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Google Vertex AI (channel type 41) against a mock of Google's token endpoint and of Vertex's prediction API.
 * The token endpoint verifies the service account's RS256-signed JWT with its public key, and the API takes
 * only the bearer tokens it issued, for the account's project. Channels are made by an admin in the console
 * (so the key is checked); then the OpenAI client to a Gemini model and to a Claude model, plain and streamed,
 * the Anthropic SDK relayed to the Claude model, tools and the Gemini SDK, embeddings, quota to the unit;
 * token reuse, renewal before expiry, a failing and a refusing token endpoint; upstream errors in each
 * client's protocol; the channel test. Key parsing, model ids and regions: provider-vertex-models.test.ts.
 */
const [GEMINI, GEMINI_ERROR, GEMINI_EMBED] = ['gemini-2.5-flash', 'gemini-error', 'gemini-embedding-001'];
const [CLAUDE, CLAUDE_V2] = ['claude-sonnet-4-5-20250929', 'claude-3-5-sonnet-20241022'];
const CLAUDE_MISSING = 'claude-3-opus-20240229';
const EMBED = 'text-embedding-005';
const MAIN_MODELS = [GEMINI, CLAUDE, CLAUDE_V2, CLAUDE_MISSING, GEMINI_ERROR, EMBED, GEMINI_EMBED];
const [RENEWED, FLAKY, FORGED] = ['gemini-renewed', 'gemini-flaky', 'gemini-forged'];
const MAIN_EMAIL = 'relay@proj-main.iam.gserviceaccount.com';
const RENEW_EMAIL = 'renew@proj-renew.iam.gserviceaccount.com';
const FLAKY_EMAIL = 'flaky@proj-flaky.iam.gserviceaccount.com';
const MAIN = '/v1/projects/proj-main/locations'; // where the main channel's project calls Vertex
const HELLO = [{ role: 'user' as const, content: 'Hello, how are you?' }];
const GEMINI_TEXT = geminiAnswer('google/generate-content/text.json');

describe('provider: Google Vertex AI', () => {
  /** The private keys of the test accounts: no answer or error may quote them. */
  const privateKeys: string[] = [];
  const account = (mock: VertexMock, o: Parameters<VertexMock['account']>[0]) => {
    const a = mock.account(o);
    privateKeys.push(a.privateKeyPem);
    return a.key;
  };
  const t = providerSuite({
    mock: startVertexMock,
    prices: cloud.recordedPrices([...MAIN_MODELS, RENEWED, FLAKY, FORGED]),
    channels: (mock) => {
      const vertex = (email: string, model: string, o: { tokenUri?: string; forged?: boolean } = {}) => ({
        type: 41,
        key: account(mock, { email, project: email.split(/[@.]/)[1], ...o }),
        base_url: mock.url,
        other: 'us-central1',
        models: [model],
        model_mapping: JSON.stringify({ [model]: GEMINI }),
      });
      return {
        'vertex-main': {
          ...vertex(MAIN_EMAIL, GEMINI),
          models: MAIN_MODELS,
          model_mapping: undefined,
          other: JSON.stringify({ default: 'us-central1', [CLAUDE]: 'us-east5' }),
        },
        // The channel setting `region` overrides the console's region field.
        'vertex-global': {
          ...vertex(RENEW_EMAIL, RENEWED),
          other: 'europe-west1',
          setting: JSON.stringify({ region: 'global' }),
        },
        'vertex-flaky-token': vertex(FLAKY_EMAIL, FLAKY, { tokenUri: mock.flakyTokenUri }),
        'vertex-wrong-private-key': vertex('forged@proj-forged.iam.gserviceaccount.com', FORGED, {
          forged: true,
        }),
      };
    },
  });
  afterEach(() => void vi.restoreAllMocks());
  const lastCall = () => t.mock.requests.at(-1);

  /** No private key, key fragment or access token in a message a client gets. */
  function expectNoSecret(message: string) {
    expect(message).not.toContain('PRIVATE KEY');
    for (const pem of privateKeys) expect(message).not.toContain(pem.split('\n')[1]);
    expect(message).not.toMatch(/ya29\./);
    expect(message).not.toMatch(/eyJ[\w-]+\.eyJ/);
  }

  it('refuses keys that are not a service-account JSON at channel save, naming what is missing', async () => {
    const spare = t.mock.account({ email: 'spare@proj-x.iam.gserviceaccount.com', project: 'proj-x' });
    const good = JSON.parse(spare.key);
    const without = (field: string) => JSON.stringify({ ...good, [field]: undefined });
    const cases: Array<[string, string]> = [
      [without('private_key'), 'private_key is missing'],
      [without('client_email'), 'client_email is missing'],
      [without('project_id'), 'project_id is missing'],
      [JSON.stringify({ ...good, private_key: 'not a pem' }), 'private_key is not a PEM private key'],
      ['AIzaSyA-an-api-key-instead', 'the key is not JSON'],
      ['["a", "b"]', 'the key is not a JSON object'],
    ];
    const body = { type: 41, name: 'bad-key', base_url: t.mock.url, other: 'us-central1', models: [GEMINI] };
    const answers = await t.saveEach(
      body,
      cases.map((c) => c[0]),
    );
    answers.forEach((r, i) => {
      expect(r.success, cases[i][0].slice(0, 40)).toBe(false);
      expect(r.message).toContain('service-account JSON key with client_email, private_key and project_id');
      expect(r.message).toContain(cases[i][1]);
      expect(r.message).not.toContain('PRIVATE KEY');
    });
  });

  it('exchanges a signed JWT for a token (the mock verifies it) and calls Gemini for an OpenAI client', async () => {
    const question = { role: 'user' as const, content: 'How many r are in strawberry?' };
    const ask = { model: GEMINI, messages: [{ role: 'system' as const, content: 'Be brief.' }, question] };
    await t.billedChat(ask, cloud.billRecorded(GEMINI_TEXT.usage), GEMINI_TEXT.text);
    expect(t.mock.exchanges.get(MAIN_EMAIL)).toBe(1);
    const call = lastCall();
    expect(call?.path).toBe(`${MAIN}/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`);
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
    const ask = {
      model: GEMINI,
      messages: [{ role: 'user' as const, content: 'How many r are in strawberry?' }],
    };
    await t.billedStream(ask, cloud.billRecorded(recorded.usage), recorded.text);
    expect(lastCall()?.action).toBe('streamGenerateContent');
    expect(lastCall()?.query).toBe('alt=sse');
  });

  it('calls Claude at rawPredict in its own region for an OpenAI client, the body as Vertex wants it', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    const ask = {
      model: CLAUDE,
      max_tokens: 64,
      messages: [{ role: 'system' as const, content: 'Be brief.' }, ...HELLO],
    };
    await t.billedChat(ask, cloud.billRecorded(recorded.usage), recorded.text);
    const call = lastCall();
    expect(call?.path).toBe(
      `${MAIN}/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
    );
    cloud.expectCloudClaudeBody(call?.body, 'vertex-2023-10-16');
    expect(call?.headers).not.toHaveProperty('x-api-key');
  });

  it('streams Claude to an OpenAI client, and maps Anthropic names to Vertex ids', async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.chunks.txt');
    await t.billedStream(
      { model: CLAUDE_V2, messages: HELLO },
      cloud.billRecorded(recorded.usage),
      recorded.text,
    );
    expect(lastCall()?.path).toBe(
      `${MAIN}/us-central1/publishers/anthropic/models/claude-3-5-sonnet-v2@20241022:streamRawPredict`,
    );
    expect(lastCall()?.body.stream).toBe(true);
  });

  it('relays the Anthropic SDK on /v1/messages to Claude, plain and streamed, its beta header passed on', async () => {
    const plain = anthropicAnswer('anthropic/messages/text.json');
    const ask = { model: CLAUDE, max_tokens: 128, messages: HELLO };
    await cloud.billedMessage(t, ask, plain, { 'anthropic-beta': 'context-1m-2025-08-07' });
    expect(lastCall()?.action).toBe('rawPredict');
    expect(lastCall()?.headers['anthropic-beta']).toBe('context-1m-2025-08-07');
    expect(lastCall()?.headers).not.toHaveProperty('anthropic-version');
    expect(lastCall()?.body.anthropic_version).toBe('vertex-2023-10-16');

    const streamed = anthropicAnswer('anthropic/messages/text.chunks.txt');
    await cloud.billedMessageStream(t, ask, streamed);
    expect(lastCall()?.action).toBe('streamRawPredict');
  });

  it("keeps Claude Code's flags Vertex refuses and structured output off Claude's call; an operator's flag goes as set", async () => {
    const recorded = anthropicAnswer('anthropic/messages/text.json');
    await cloud.billedClaudeCode(t, CLAUDE, 'web-search-2025-03-05', recorded, () => lastCall()?.body);
    expect(lastCall()?.headers['anthropic-beta']).toBe(
      'interleaved-thinking-2025-05-14,tool-search-tool-2025-10-19,web-search-2025-03-05,future-feature-2027-01-01',
    );
  });

  it('streams Gemini tool calls to an OpenAI client, Claude tool calls too, and relays the Gemini SDK', async () => {
    const geminiTools = geminiAnswer('google/generate-content/function-call.chunks.txt');
    expect(geminiTools.calls.length).toBeGreaterThan(0);
    await cloud.billedAsk(t, 'openai', GEMINI, { stream: true, tools: true }, geminiTools);
    expect(lastCall()?.body.tools?.[0]?.functionDeclarations?.[0]).toMatchObject({ name: 'get_weather' });

    const claudeTools = anthropicAnswer('anthropic/messages/tool-use-parallel.chunks.txt');
    await cloud.billedAsk(t, 'openai', CLAUDE, { stream: true, tools: true }, claudeTools);
    expect(lastCall()?.body.tools?.[0]).toMatchObject({
      name: 'get_weather',
      input_schema: { type: 'object' },
    });

    expect((await cloud.billedAsk(t, 'gemini', GEMINI, {}, GEMINI_TEXT)).text).toBe(GEMINI_TEXT.text);
    expect(lastCall()?.action).toBe('generateContent');
  });

  it('answers embeddings from :predict with the token counts Vertex reports', async () => {
    const inputs = ['hello world', 'the quick brown fox'];
    const r = await t.billed({ prompt: 6, completion: 0, quota: 6 }, () =>
      t.openai().embeddings.create({ model: EMBED, input: inputs }),
    );
    expect(r.data.map((d) => d.embedding)).toEqual(inputs.map(embeddingOf));
    expect(r.data.map((d) => d.index)).toEqual([0, 1]);
    expect(r.usage.prompt_tokens).toBe(6);
    expect(lastCall()?.path).toBe(`${MAIN}/us-central1/publishers/google/models/text-embedding-005:predict`);
    expect(lastCall()?.body).toEqual({ instances: inputs.map((content) => ({ content })) });

    // gemini-embedding-001 takes one text per call: one call per input, answered together in order.
    const calls = t.mock.requests.length;
    const g = await t.billed({ prompt: 8, completion: 0, quota: 8 }, () =>
      t.openai().embeddings.create({ model: GEMINI_EMBED, input: [...inputs, 'one more'] }),
    );
    expect(g.data.map((d) => d.embedding)).toEqual([...inputs, 'one more'].map(embeddingOf));
    expect(g.usage.prompt_tokens).toBe(8);
    const made = t.mock.requests.slice(calls);
    expect(made).toHaveLength(3);
    expect(made.map((c) => c.body.instances.length)).toEqual([1, 1, 1]);
  });

  it("maps Vertex's errors into each client's protocol without secrets, billing nothing", async () => {
    const noSecret = (_: unknown, e: ClientError) => {
      expectNoSecret(e.message);
      expect(e.message).toMatch(/request id/);
    };
    const quota = 'You exceeded your current quota';
    await t.unbilled(() =>
      t.expectErrors([
        { via: 'chat', model: GEMINI_ERROR, status: 429, says: quota, check: noSecret },
        { via: 'messages', model: GEMINI_ERROR, status: 429, type: 'rate_limit_error', check: noSecret },
        // A Claude model the project cannot use: Google's 404 NOT_FOUND, to the Anthropic SDK and an OpenAI stream.
        {
          via: 'messages',
          model: CLAUDE_MISSING,
          status: 404,
          says: 'claude-3-opus@20240229` not found',
          check: noSecret,
        },
        { via: 'chat-stream', model: CLAUDE_MISSING, status: 404, check: noSecret },
      ]),
    );
  });

  it('reuses one token for concurrent and later calls, and renews it five minutes before it expires', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => t.ask(RENEWED)));
    for (const a of answers) expect(a.choices[0].message.content).toBe(GEMINI_TEXT.text);
    expect(t.mock.exchanges.get(RENEW_EMAIL)).toBe(1);
    // The `global` region has no region in the host and `locations/global` in the path.
    expect(lastCall()?.path).toBe(
      '/v1/projects/proj-renew/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    await t.ask(RENEWED);
    expect(t.mock.exchanges.get(RENEW_EMAIL)).toBe(1);
    // The main channel's token has served every call above on one exchange.
    expect(t.mock.exchanges.get(MAIN_EMAIL)).toBe(1);

    const start = Date.now();
    const now = vi.spyOn(Date, 'now');
    const askAt = async (minutes: number, exchanges: number) => {
      now.mockImplementation(() => start + minutes * 60_000);
      await t.ask(RENEWED);
      expect(t.mock.exchanges.get(RENEW_EMAIL)).toBe(exchanges);
    };
    await askAt(54, 1);
    await askAt(56, 2);
    await t.ask(RENEWED);
    expect(t.mock.exchanges.get(RENEW_EMAIL)).toBe(2);
  });

  it('fails cleanly when the token endpoint fails, and exchanges again on the next call', async () => {
    t.mock.flaky = 1;
    const calls = t.mock.tokenCalls;
    const err = await t.unbilled(() => failed(t.ask(FLAKY)));
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(502);
    // The endpoint's answer is for the log and the console, not for API callers (token-exchange-errors.test.ts).
    expect(err.message).toContain('the Vertex AI access token exchange failed');
    expect(err.message).not.toContain('Backend Error');
    expectNoSecret(err.message);
    expect(t.mock.tokenCalls).toBe(calls + 1);
    expect(t.mock.exchanges.get(FLAKY_EMAIL)).toBeUndefined();

    expect((await t.ask(FLAKY)).choices[0].message.content).toBe(GEMINI_TEXT.text);
    expect(t.mock.tokenCalls).toBe(calls + 2);
    expect(t.mock.exchanges.get(FLAKY_EMAIL)).toBe(1);
  });

  it('answers the gateway’s own 503 when Google refuses the JWT (a key that is not the account’s), and never caches it', async () => {
    const calls = t.mock.tokenCalls;
    const apiCalls = t.mock.requests.length;
    for (let i = 0; i < 2; i++) {
      const err = await failed(t.ask(FORGED));
      expect(err.status).toBe(503);
      expect(err.message).toContain('refused the credentials of the channel');
      expect(err.message).not.toContain('Invalid JWT Signature.');
      expectNoSecret(err.message);
    }
    expect(t.mock.tokenCalls).toBe(calls + 2);
    expect(t.mock.requests.length).toBe(apiCalls);
  });

  it('tests a channel through the console', async () => {
    const test = (model = '') =>
      t.admin.get(`/api/channel/test/${t.ids['vertex-main']}${model && `?model=${model}`}`);
    const gemini = await test();
    expect(gemini.success, gemini.message).toBe(true);
    expect(lastCall()?.path).toMatch(/\/publishers\/google\/models\/gemini-2\.5-flash:generateContent$/);
    const claude = await test(CLAUDE);
    expect(claude.success, claude.message).toBe(true);
    expect(lastCall()?.path).toMatch(
      /\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:rawPredict$/,
    );
    const embed = await test(EMBED);
    expect(embed.success, embed.message).toBe(true);
    expect(lastCall()?.action).toBe('predict');
    expect(lastCall()?.body).toEqual({ instances: [{ content: 'hello world' }] });
    const broken = await test(GEMINI_ERROR);
    expect(broken.success).toBe(false);
    expect(broken.message).toContain('You exceeded your current quota');
  });
});
