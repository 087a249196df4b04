import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { relayState } from '../src/relay/relay-state.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { parseExposition, scrape } from './support/prometheus.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const TOKEN = 'scrape-secret-4f1c';
const MODEL = 'gpt-4.1-nano-2025-04-14';

/**
 * /metrics: off unless METRICS_TOKEN or METRICS_ALLOW is set, and guarded by them. What it counts:
 * metrics.test.ts.
 */
describe('metrics: access', () => {
  let mock: MockUpstream;
  const servers: TestServer[] = [];
  const start = async (env: Record<string, string>) => {
    const s = await startServer({ env });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    mock = await startMockUpstream();
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await mock?.close();
  });

  it('is off by default: /metrics answers 404 (not the console page) and the relay keeps no metrics', async () => {
    const server = await start({});
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toBe('Not Found');
    expect(server.ctx.metrics).toBeUndefined();
    expect(relayState(server.ctx).metrics).toBeUndefined();
    // The relay works as before without a meter.
    const user = await seedUser(server.ctx, { quota: 1_000_000 });
    const token = await seedToken(server.ctx, { userId: user.id, unlimited: true });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0].message.content).toContain('Galaxy Day');
  });

  it('asks for the bearer token: 401 without it or with a wrong one, 200 with it', async () => {
    const server = await start({ METRICS_TOKEN: TOKEN });
    const bare = await fetch(`${server.url}/metrics`);
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await bare.text()).not.toContain(TOKEN);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${server.url}/metrics`, { headers: { authorization: TOKEN } });
    expect(basic.status).toBe(401);
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const text = await ok.text();
    expect(text).toContain('# TYPE modelgate_relay_requests_total counter');
    // Node's default process metrics.
    const s = parseExposition(text);
    expect(s.value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(s.samples('nodejs_heap_size_total_bytes')).toHaveLength(1);
    expect(s.samples('nodejs_eventloop_lag_seconds')).toHaveLength(1);
  });

  it('an allow list alone, or with the token, and never rate limited or given console headers', async () => {
    const elsewhere = await start({ METRICS_ALLOW: '10.0.0.0/8, 192.168.1.7' });
    expect((await fetch(`${elsewhere.url}/metrics`)).status).toBe(403);

    const local = await start({
      METRICS_ALLOW: '127.0.0.1\n::1',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'true',
      GLOBAL_WEB_RATE_LIMIT: '2',
    });
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${local.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBeNull();
      expect(res.headers.get('x-frame-options')).toBeNull();
    }
    // The same limit still holds for console pages.
    const pages = [];
    for (let i = 0; i < 4; i++) pages.push((await fetch(`${local.url}/console`)).status);
    expect(pages).toContain(429);

    const both = await start({ METRICS_ALLOW: '127.0.0.0/8,::1/128', METRICS_TOKEN: TOKEN });
    expect((await fetch(`${both.url}/metrics`)).status).toBe(401);
    await expect(scrape(both.url, TOKEN)).resolves.toBeTruthy();
  });

  it('refuses to start with an allow-list entry that is not an address or range', () => {
    expect(() => loadConfig({ METRICS_ALLOW: '10.0.0.0/8,not-an-ip' })).toThrow(/METRICS_ALLOW.*not-an-ip/);
    expect(() => loadConfig({ METRICS_ALLOW: '10.0.0.0/33' })).toThrow(/METRICS_ALLOW/);
  });
});
