import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * What the console writes is what the relay obeys at once: channels and tokens made and changed through
 * /api/channel and /api/token, then used with the official OpenAI client on /v1 (no restart, no wait).
 */
describe('console changes reach the relay', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  let user: ConsoleClient;
  let channelId: number;
  let token: { id: number; key: string };
  const MODEL = 'gpt-4.1-nano-2025-04-14';

  const client = (key = token.key) =>
    new OpenAI({ apiKey: `sk-${key}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ask = (key?: string) =>
    client(key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  const statusOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 200;
    } catch (err) {
      return (err as { status?: number }).status ?? -1;
    }
  };

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    user = await loginAs(server, { username: 'user', quota: 50_000_000 });
    const ch = await admin.post('/api/channel/', {
      type: 1,
      name: 'mock',
      key: 'sk-upstream-good',
      base_url: mock.url,
      models: [MODEL],
      group: 'default',
    });
    expect(ch.success, ch.message).toBe(true);
    channelId = ch.data.ids[0];
    const tk = await user.post('/api/token/', { name: 'app', remain_quota: 5_000_000 });
    expect(tk.success, tk.message).toBe(true);
    token = tk.data[0];
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('relays with a console-made token through a console-made channel', async () => {
    const r = await ask();
    expect(r.choices[0].message.content).toContain('Galaxy Day');
    expect(mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-upstream-good');
  });

  it('follows channel status changes made in the console', async () => {
    expect((await admin.put('/api/channel/', { id: channelId, status: 2 })).success).toBe(true);
    expect(await statusOf(ask())).toBe(503);
    await admin.put('/api/channel/', { id: channelId, status: 1 });
    expect(await statusOf(ask())).toBe(200);
  });

  it('follows model changes made in the console', async () => {
    await admin.put('/api/channel/', { id: channelId, models: 'gpt-4o' });
    expect(await statusOf(ask())).toBe(503);
    await admin.put('/api/channel/', { id: channelId, models: [MODEL, 'gpt-4o'] });
    expect(await statusOf(ask())).toBe(200);
  });

  it('follows token status, IP allow list and model limits set in the console', async () => {
    await user.put('/api/token/?status_only=true', { id: token.id, status: 2 });
    expect(await statusOf(ask())).toBe(401);
    await user.put('/api/token/?status_only=true', { id: token.id, status: 1 });
    expect(await statusOf(ask())).toBe(200);

    await user.put('/api/token/', { id: token.id, allow_ips: '10.0.0.0/8\n2001:db8::/32' });
    expect(await statusOf(ask())).toBe(403);
    await user.put('/api/token/', { id: token.id, allow_ips: '127.0.0.0/8' });
    expect(await statusOf(ask())).toBe(200);

    await user.put('/api/token/', { id: token.id, model_limits_enabled: true, model_limits: 'gpt-4o' });
    expect(await statusOf(ask())).toBe(403);
    await user.put('/api/token/', { id: token.id, model_limits: `gpt-4o,${MODEL}` });
    expect(await statusOf(ask())).toBe(200);
  });

  it('stops a deleted token and a deleted channel', async () => {
    const [spare] = (await user.post('/api/token/', { name: 'spare' })).data;
    expect(await statusOf(ask(spare.key))).toBe(200);
    await user.del(`/api/token/${spare.id}`);
    expect(await statusOf(ask(spare.key))).toBe(401);
    await admin.del(`/api/channel/${channelId}`);
    expect(await statusOf(ask())).toBe(503);
  });
});
