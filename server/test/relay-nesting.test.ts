import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Deeply nested JSON and malformed chat messages: refused with a 400 in OpenAI's shape on every JSON relay
 * endpoint, through the fast lane and through Fastify, before anything is held, sent upstream or billed.
 */
describe('relay: nesting depth and message shapes', () => {
  let mock: MockUpstream;
  let server: TestServer;
  let apiKey: string;
  let userId: number;
  const MODEL = 'gpt-4.1-nano-2025-04-14';

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: [MODEL, 'text-embedding-3-small', 'omni-moderation-latest', 'dall-e-2', 'tts-1', 'rerank-1'],
    });
    apiKey = (await seedToken(server.ctx, { userId, unlimited: true })).apiKey;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  // The lane takes plain JSON POSTs to exact paths; a trailing slash or a compressed body goes to Fastify.
  const transports = ['lane', 'fastify (trailing slash)', 'fastify (gzip)'] as const;
  function post(path: string, body: string, via: (typeof transports)[number]): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
    };
    if (via === 'fastify (gzip)') headers['content-encoding'] = 'gzip';
    return fetch(`${server.url}${path}${via === 'fastify (trailing slash)' ? '/' : ''}`, {
      method: 'POST',
      headers,
      body: via === 'fastify (gzip)' ? gzipSync(body) : body,
    });
  }

  async function snapshot() {
    await flushLedger(server.ctx);
    const row = await server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const logs = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return {
      quota: Number(row.quota),
      used: Number(row.used_quota),
      available: relayState(server.ctx).users.peekBalance(userId)?.available,
      logs: Number(logs.n),
      upstream: mock.requests.length,
    };
  }

  async function expectRefused(res: Response, message: string, label: unknown) {
    expect({ label, status: res.status }).toEqual({ label, status: 400 });
    const json = (await res.json()) as any;
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toContain(message);
    expect(json.error.message).toContain(`(request id: ${res.headers.get('x-oneapi-request-id')})`);
  }

  const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  // Each endpoint's body with the nested value where inspection reads text, or in a passed-through field.
  const endpoints: Array<[string, (deep: string) => string]> = [
    [
      '/v1/chat/completions',
      (d) =>
        `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"},{"role":"user","content":${d}}]}`,
    ],
    ['/v1/completions', (d) => `{"model":"${MODEL}","prompt":${d}}`],
    ['/v1/embeddings', (d) => `{"model":"text-embedding-3-small","input":${d}}`],
    ['/v1/moderations', (d) => `{"input":${d}}`],
    ['/v1/images/generations', (d) => `{"prompt":"a cat","metadata":${d}}`],
    ['/v1/audio/speech', (d) => `{"model":"tts-1","input":"hello","voice":${d}}`],
    ['/v1/rerank', (d) => `{"model":"rerank-1","query":"q","documents":${d}}`],
  ];

  it('a valid request is served (and warms the balance the checks below compare)', async () => {
    const res = await post(
      '/v1/chat/completions',
      JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      'lane',
    );
    expect(res.status).toBe(200);
  });

  it('nesting 1,000 / 10,000 / 50,000 deep gets 400 on every endpoint and path; nothing is sent or billed', async () => {
    const before = await snapshot();
    for (const depth of [1_000, 10_000, 50_000]) {
      for (const [path, body] of endpoints) {
        for (const via of transports) {
          const res = await post(path, body(nest(depth)), via);
          await expectRefused(res, 'nested too deeply', { depth, path, via });
        }
      }
    }
    // Objects nest the same way.
    const objects = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    for (const via of transports)
      await expectRefused(
        await post('/v1/chat/completions', `{"model":"${MODEL}","messages":${objects}}`, via),
        'nested too deeply',
        via,
      );
    expect(await snapshot()).toEqual(before);
  });

  it('brackets, escaped quotes and backslashes inside strings do not count; nesting up to the limit is served', async () => {
    // An escaped quote inside, an escaped backslash at the end (the quote after it closes the string).
    const text = `${'[{'.repeat(5_000)} \\" ${'[{'.repeat(5_000)} \\\\`;
    const atLimit = `${'{"a":'.repeat(63)}1${'}'.repeat(63)}`; // 64 levels with the body's own object
    const body = `{"model":"${MODEL}","messages":[{"role":"user","content":"${text}"}],"metadata":${atLimit}}`;
    for (const via of transports) expect((await post('/v1/chat/completions', body, via)).status).toBe(200);
    const over = body.replace(atLimit, `[${atLimit}]`);
    for (const via of transports)
      await expectRefused(await post('/v1/chat/completions', over, via), 'nested too deeply', via);
  });

  it('malformed chat messages get 400 before anything is held or sent', async () => {
    const before = await snapshot();
    const cases: Array<[unknown, string]> = [
      ['hi', 'messages is required and must be a non-empty array'],
      [[], 'messages is required and must be a non-empty array'],
      [['hi'], 'messages[0] must be an object'],
      [[null], 'messages[0] must be an object'],
      [[[{ role: 'user', content: 'hi' }]], 'messages[0] must be an object'],
      [[{ content: 'hi' }], 'messages[0].role must be one of'],
      [
        [
          { role: 'user', content: 'hi' },
          { role: 'hacker', content: 'hi' },
        ],
        'messages[1].role must be one of',
      ],
      [[{ role: 'user', content: 5 }], 'messages[0].content must be a string, null or an array'],
      [[{ role: 'user', content: { text: 'hi' } }], 'messages[0].content must be a string, null or an array'],
      [[{ role: 'user', content: ['hi'] }], 'messages[0].content parts must be objects with a string type'],
      [
        [{ role: 'user', content: [{ text: 'hi' }] }],
        'messages[0].content parts must be objects with a string type',
      ],
      [[{ role: 'user', content: [[{ type: 'text', text: 'hi' }]] }], 'content parts must be objects'],
    ];
    for (const [messages, message] of cases) {
      for (const via of transports) {
        const res = await post('/v1/chat/completions', JSON.stringify({ model: MODEL, messages }), via);
        await expectRefused(res, message, { messages, via });
      }
    }
    expect(await snapshot()).toEqual(before);
  });
});
