import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The fast lane (JSON POSTs to the main relay paths, served without Fastify's request lifecycle) must answer
 * exactly as the Fastify routes do: same bodies, headers, limits, error shapes and client address rules.
 */
describe('relay: fast lane and Fastify routes agree', () => {
  let mock: MockUpstream;
  let direct: TestServer;
  let proxied: TestServer;
  const MODEL = 'gpt-4.1-nano-2025-04-14';
  const keys = new Map<TestServer, string>();

  async function seed(server: TestServer, allowIps = '') {
    const userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    return (await seedToken(server.ctx, { userId, remain: 10_000_000, allowIps })).apiKey;
  }

  beforeAll(async () => {
    mock = await startMockUpstream();
    // No trusted proxies here (the default trusts loopback, which is where the tests connect from).
    direct = await startServer({ env: { MAX_REQUEST_BODY_MB: '1', TRUSTED_PROXIES: '' } });
    keys.set(direct, await seed(direct));
    proxied = await startServer({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    keys.set(proxied, await seed(proxied, '203.0.113.7'));
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
    await mock?.close();
  });

  const chat = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };
  function post(
    server: TestServer,
    path: string,
    body: string,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${keys.get(server)}`,
        'content-type': 'application/json',
        origin: 'https://app.example',
        ...headers,
      },
      body,
    });
  }

  it('answers the same through the lane and through Fastify (trailing slash), with the same headers and log rows', async () => {
    const viaLane = await post(direct, '/v1/chat/completions', JSON.stringify(chat));
    const viaFastify = await post(direct, '/v1/chat/completions/', JSON.stringify(chat));
    for (const res of [viaLane, viaFastify]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(res.headers.get('access-control-allow-credentials')).toBe('true');
      expect(res.headers.get('x-oneapi-request-id')).toMatch(/^\d{14}[0-9a-f]{8}$/);
    }
    const [a, b] = [(await viaLane.json()) as any, (await viaFastify.json()) as any];
    expect(a.choices[0].message.content).toBe(b.choices[0].message.content);
    await flushLedger(direct.ctx);
    const rows = await direct.ctx.logDb.db
      .selectFrom('logs')
      .select(['other', 'quota'])
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
    const ids = rows.map((r) => JSON.parse(String(r.other)).request_id);
    expect(ids).toEqual([
      viaLane.headers.get('x-oneapi-request-id'),
      viaFastify.headers.get('x-oneapi-request-id'),
    ]);
    expect(rows[0].quota).toBe(rows[1].quota);
  });

  it('refuses malformed bodies in OpenAI shape on both paths', async () => {
    const cases: Array<[string, string, Record<string, string>, number, string]> = [
      ['empty body', '', {}, 400, 'invalid JSON in request body'],
      ['truncated JSON', '{"model":', {}, 400, 'invalid JSON in request body'],
      ['prototype poisoning', '{"model":"x","__proto__":{"admin":true}}', {}, 400, 'invalid JSON'],
      [
        'prototype poisoning, escaped and nested',
        '{"model":"x","messages":[{"role":"user","content":"hi","\\u005f_proto__":{"admin":true}}]}',
        {},
        400,
        'invalid JSON',
      ],
      [
        'constructor.prototype',
        '{"model":"x","tools":[{"constructor":{"prototype":{}}}]}',
        {},
        400,
        'invalid JSON',
      ],
      ['a JSON array', '[1,2]', {}, 400, 'request body must be a JSON object'],
      ['declared size over the limit', '{}', { 'content-length': String(2 * 1024 * 1024) }, 413, ''],
    ];
    for (const path of ['/v1/chat/completions', '/v1/chat/completions/']) {
      for (const [name, body, headers, status, message] of cases) {
        if (headers['content-length']) {
          // fetch computes content-length itself: send a real oversized body instead.
          const big = JSON.stringify({ ...chat, pad: 'x'.repeat(1_100_000) });
          const res = await post(direct, path, big);
          expect({ path, name, status: res.status }).toEqual({ path, name, status });
          const json = (await res.json()) as any;
          expect(json.error.code).toBe('request_too_large');
          continue;
        }
        const res = await post(direct, path, body, headers);
        expect({ path, name, status: res.status }).toEqual({ path, name, status });
        const json = (await res.json()) as any;
        expect(json.error.message).toContain(message);
        expect(json.error.message).toContain(`(request id: ${res.headers.get('x-oneapi-request-id')})`);
        expect(json.error.type).toBe('invalid_request_error');
      }
    }
  });

  it('reads the client address from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const body = JSON.stringify(chat);
    // Trusted proxy (127.0.0.1): the forwarded address is the client's and is on the allow list.
    expect(
      (await post(proxied, '/v1/chat/completions', body, { 'x-forwarded-for': '203.0.113.7' })).status,
    ).toBe(200);
    const refused = await post(proxied, '/v1/chat/completions', body);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('ip_not_allowed');
    // With TRUSTED_PROXIES empty the header is ignored: a client cannot claim an allowed address.
    const spoofKey = await seedToken(direct.ctx, {
      userId: (await seedUser(direct.ctx, { quota: 1000 })).id,
      remain: 1000,
      allowIps: '203.0.113.7',
    });
    const spoofed = await fetch(`${direct.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${spoofKey.apiKey}`,
        'content-type': 'application/json',
        'x-forwarded-for': '203.0.113.7',
      },
      body,
    });
    expect(spoofed.status).toBe(403);
  });
});
