import { ChannelStatus, Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Issue 27 point 6, with automatic disabling left off (the default): a key the upstream refuses with 401 leaves
 * its multi-key channel's rotation alone, the list counts keys and enabled keys, an admin tests one key, and a
 * caller never sees the provider's "Incorrect API key provided" but the gateway's own error.
 */
const MODEL = 'gpt-4.1-nano-2025-04-14';

describe('refused keys of multi-key channels', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  let user: ConsoleClient;
  let token: string;

  const ask = (model: string) =>
    new OpenAI({ apiKey: `sk-${token}`, baseURL: `${server.url}/v1`, maxRetries: 0 }).chat.completions.create(
      {
        model,
        messages: [{ role: 'user', content: 'hi' }],
      },
    );

  async function makeChannel(key: string, model: string, setting = ''): Promise<number> {
    const r = await admin.post('/api/channel/', {
      setting,
      type: 1,
      name: `refused-${model}`,
      key,
      mode: 'multi_key',
      base_url: mock.url,
      models: [model],
      group: 'default',
    });
    expect(r.success, r.message).toBe(true);
    const id = r.data.ids[0];
    await expect.poll(() => relayState(server.ctx).channels.get(id) !== undefined).toBe(true);
    return id;
  }
  const listed = async (id: number) =>
    ((await admin.get('/api/channel/?p=0&page_size=50')).data as Array<Record<string, number>>).find(
      (c) => c.id === id,
    );

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    await server.ctx.options.set('RetryTimes', '2');
    expect(server.ctx.options.bool('AutomaticDisableChannelEnabled')).toBe(false);
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    user = await loginAs(server, { username: 'user', quota: 500_000_000 });
    token = (await user.post('/api/token/', { name: 'app', unlimited_quota: true })).data[0].key;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('disables the refused key alone while the others serve, and the list counts the keys', async () => {
    // Keys taken in turn, so the refused key is certainly among the 12 requests' keys (at random, none of 12
    // picks falls on it once in 130 runs).
    const id = await makeChannel(
      'sk-key-a\nsk-badkey-1\nsk-key-b',
      MODEL,
      JSON.stringify({ multi_key_mode: 'polling' }),
    );
    expect(await listed(id)).toMatchObject({ key_count: 3, keys_enabled: 3 });
    const answers = await Promise.all(Array.from({ length: 12 }, () => ask(MODEL)));
    expect(answers.every((a) => a.choices[0].message.content)).toBe(true);
    await expect
      .poll(async () =>
        (await admin.get(`/api/channel/${id}`)).data.keys.map((k: { status: number }) => k.status),
      )
      .toEqual([ChannelStatus.Enabled, ChannelStatus.AutoDisabled, ChannelStatus.Enabled]);
    expect((await admin.get(`/api/channel/${id}`)).data.status).toBe(ChannelStatus.Enabled);
    expect(await listed(id)).toMatchObject({ key_count: 3, keys_enabled: 2 });
    expect(JSON.stringify(await listed(id))).not.toContain('sk-key-a');
  });

  it("gives the caller the gateway's own error when every key is refused", async () => {
    const id = await makeChannel('sk-badkey-2\nsk-badkey-3', 'gpt-4o');
    const err = await ask('gpt-4o').catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(503);
    expect(err.code).toBe('upstream_auth_failed');
    expect(err.message).toMatch(/upstream provider refused the credentials/);
    expect(err.message).not.toMatch(/Incorrect API key|sk-badkey/);
    // With automatic disabling off, the last enabled key stays (whichever was tried second): the channel is not
    // taken down by this rule.
    await expect
      .poll(async () =>
        (await admin.get(`/api/channel/${id}`)).data.keys.map((k: { status: number }) => k.status).sort(),
      )
      .toEqual([ChannelStatus.Enabled, ChannelStatus.AutoDisabled]);
    expect((await admin.get(`/api/channel/${id}`)).data.status).toBe(ChannelStatus.Enabled);
  });

  it('tests one key: a good key passes, a refused key is disabled alone, and only admins may', async () => {
    const id = await makeChannel('sk-key-c\nsk-badkey-4', 'gpt-4o-mini');
    const good = await admin.get(`/api/channel/test/${id}?key=0`);
    expect(good.success, good.message).toBe(true);
    const bad = await admin.get(`/api/channel/test/${id}?key=1`);
    expect(bad.success).toBe(false);
    expect(bad.message).toMatch(/401/);
    expect(bad.message).toMatch(/key disabled automatically/);
    expect(bad.message).not.toContain('sk-badkey-4');
    expect(bad.data.keys.map((k: { status: number }) => k.status)).toEqual([
      ChannelStatus.Enabled,
      ChannelStatus.AutoDisabled,
    ]);
    expect(mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-badkey-4');
    expect((await admin.get(`/api/channel/${id}`)).data.status).toBe(ChannelStatus.Enabled);
    expect((await admin.get(`/api/channel/test/${id}?key=7`)).status).toBe(404);
    expect((await admin.get(`/api/channel/test/${id}?key=-1`)).status).toBe(400);
    expect((await user.get(`/api/channel/test/${id}?key=0`)).status).toBe(403);
  });
});
