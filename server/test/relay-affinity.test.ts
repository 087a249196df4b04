import Anthropic from '@anthropic-ai/sdk';
import { ChannelStatus, Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Conversation affinity: the turns of one conversation go to the channel and key that answered its last turn,
 * so thinking signatures, encrypted reasoning and prompt caches stay with the account that made them, while
 * different conversations still spread over the channels; a conversation moves only when its channel cannot
 * take it any more, and then stays where it went.
 */
const keyOf = (headers: Record<string, unknown>) =>
  String(headers.authorization ?? '').replace(/^Bearer /, '');

describe('conversation affinity', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  let token: string;

  const openai = () => new OpenAI({ apiKey: `sk-${token}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const served = (since: number) => mock.requests.slice(since).map((r) => keyOf(r.headers));

  /** Channels of one model (each test its own) with the given keys, one channel per entry. */
  async function makeChannels(model: string, keys: string[]): Promise<number[]> {
    const ids: number[] = [];
    for (const key of keys) {
      const r = await admin.post('/api/channel/', {
        type: 1,
        name: `${model}-${ids.length}`,
        key,
        mode: key.includes('\n') ? 'multi_key' : 'single',
        base_url: mock.url,
        models: [model],
        group: 'default',
      });
      expect(r.success, r.message).toBe(true);
      ids.push(r.data.ids[0]);
    }
    await expect.poll(() => ids.every((id) => relayState(server.ctx).channels.get(id))).toBe(true);
    return ids;
  }

  /** A conversation's turns: each resends the history, as chat clients do. */
  async function converse(model: string, turns: number, extra: Record<string, unknown> = {}, headers = {}) {
    const since = mock.requests.length;
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: `question ${Math.random()}` },
    ];
    for (let i = 0; i < turns; i++) {
      const answer = await openai().chat.completions.create({ model, messages, ...extra }, { headers });
      messages.push({ role: 'assistant', content: answer.choices[0].message.content ?? '' });
      messages.push({ role: 'user', content: `and then ${i}?` });
    }
    return served(since);
  }

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    await server.ctx.options.set('RetryTimes', '2');
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await seedUser(server.ctx, { quota: 500_000_000 });
    token = (await seedToken(server.ctx, { userId: user.id, unlimited: true })).key;
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it("keeps each conversation's turns on one channel, by its first message, while conversations spread", async () => {
    const model = 'gpt-4.1-nano-2025-04-14';
    await makeChannels(model, ['sk-first', 'sk-second']);
    const firsts: string[] = [];
    for (let c = 0; c < 16; c++) {
      const keys = await converse(model, 4);
      expect(keys).toHaveLength(4);
      expect(new Set(keys).size, `conversation ${c}: ${keys}`).toBe(1);
      firsts.push(keys[0]);
    }
    expect(new Set(firsts)).toEqual(new Set(['sk-first', 'sk-second']));
  });

  it('still spreads one-shot requests that start alike', async () => {
    const model = 'gpt-4.1-nano-2025-04-14';
    const since = mock.requests.length;
    await Promise.all(
      Array.from({ length: 40 }, () =>
        openai().chat.completions.create({
          model,
          messages: [
            { role: 'system', content: 'Summarise.' },
            { role: 'user', content: 'The same template every time' },
          ],
        }),
      ),
    );
    const keys = served(since);
    expect(keys).toHaveLength(40);
    expect(keys.filter((k) => k === 'sk-first').length).toBeGreaterThan(5);
    expect(keys.filter((k) => k === 'sk-second').length).toBeGreaterThan(5);
  });

  it("follows Codex's session header and prompt_cache_key from the first turn, and each session's own key", async () => {
    const model = 'gpt-4.1-mini-2025-04-14';
    await makeChannels(model, ['sk-a1\nsk-a2\nsk-a3', 'sk-b1\nsk-b2']);
    const picked = new Set<string>();
    for (let c = 0; c < 12; c++) {
      const bySession = await converse(model, 5, {}, { session_id: `session-${c}` });
      expect(new Set(bySession).size, `session ${c}: ${bySession}`).toBe(1);
      const byCacheKey = await converse(model, 5, { prompt_cache_key: `cache-${c}` });
      expect(new Set(byCacheKey).size, `cache key ${c}: ${byCacheKey}`).toBe(1);
      picked.add(bySession[0]).add(byCacheKey[0]);
    }
    expect(picked.size).toBeGreaterThan(2);
  });

  it('keeps a Claude Code session (metadata.user_id) on one channel', async () => {
    const model = 'gpt-4.1-2025-04-14';
    await makeChannels(model, ['sk-c1', 'sk-c2']);
    const anthropic = new Anthropic({ apiKey: `sk-${token}`, baseURL: server.url, maxRetries: 0 });
    for (let c = 0; c < 6; c++) {
      const since = mock.requests.length;
      const metadata = { user_id: `user_abc_account__session_${c}` };
      for (let i = 0; i < 4; i++)
        await anthropic.messages.create({
          model,
          max_tokens: 64,
          metadata,
          messages: [{ role: 'user', content: `turn ${i}` }],
        });
      const keys = served(since);
      expect(keys).toHaveLength(4);
      expect(new Set(keys).size, `session ${c}: ${keys}`).toBe(1);
    }
  });

  it('moves a conversation whose channel is disabled, and keeps it where it went', async () => {
    const model = 'gpt-4o-mini';
    const ids = await makeChannels(model, ['sk-d1', 'sk-d2']);
    const headers = { session_id: 'moving' };
    const ask = () =>
      openai().chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }, { headers });
    let since = mock.requests.length;
    for (let i = 0; i < 3; i++) await ask();
    const [before] = new Set(served(since));
    expect(served(since)).toEqual([before, before, before]);

    const gone = before === 'sk-d1' ? ids[0] : ids[1];
    const r = await admin.put('/api/channel/', { id: gone, status: ChannelStatus.ManuallyDisabled });
    expect(r.success, r.message).toBe(true);
    await expect
      .poll(() => relayState(server.ctx).channels.get(gone)?.status)
      .toBe(ChannelStatus.ManuallyDisabled);
    since = mock.requests.length;
    for (let i = 0; i < 3; i++) await ask();
    const after = before === 'sk-d1' ? 'sk-d2' : 'sk-d1';
    expect(served(since)).toEqual([after, after, after]);

    // Back in service, the channel does not take the conversation back: it stays where its signatures are.
    const on = await admin.put('/api/channel/', { id: gone, status: ChannelStatus.Enabled });
    expect(on.success, on.message).toBe(true);
    await expect.poll(() => relayState(server.ctx).channels.get(gone)?.status).toBe(ChannelStatus.Enabled);
    since = mock.requests.length;
    for (let i = 0; i < 3; i++) await ask();
    expect(served(since)).toEqual([after, after, after]);
  });
});
