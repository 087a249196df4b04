import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Quota warnings: a charge that takes the balance below the user's threshold sends one signed webhook. */
describe('relay: quota warning', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let hook: Server;
  let hookUrl = '';
  const received: Array<{ body: string; signature: string }> = [];

  beforeAll(async () => {
    mock = await startMockUpstream();
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ body, signature: String(req.headers['x-webhook-signature'] ?? '') });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    // The receiver is on loopback, which the SSRF guard refuses unless the admin allows private targets.
    await server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: ['deepseek-chat'] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    hook?.close();
  });

  it('sends one webhook with an HMAC signature when the balance crosses the threshold', async () => {
    const user = await seedUser(server.ctx, {
      quota: 600,
      setting: {
        notify_type: 'webhook',
        quota_warning_threshold: 500,
        webhook_url: hookUrl,
        webhook_secret: 's3cret',
      },
    });
    const token = await seedToken(server.ctx, { userId: user.id, unlimited: true });
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // 164 quota per request: 600 -> 436 crosses 500; 436 -> 272 is already below it.
    await client.chat.completions.create({
      model: 'deepseek-chat',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await client.chat.completions.create({
      model: 'deepseek-chat',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'hi' }],
    });
    for (let i = 0; i < 50 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    expect(received).toHaveLength(1);
    const payload = JSON.parse(received[0].body);
    expect(payload.type).toBe('quota_exceed');
    expect(received[0].signature).toBe(createHmac('sha256', 's3cret').update(received[0].body).digest('hex'));
  });
});
