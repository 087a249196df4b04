import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * A converted call never hands another vendor the client's device identifiers. Claude Code sends
 * `metadata.user_id` as a JSON string with its device and session ids; on a call converted to OpenAI chat or
 * Responses, `user` is absent by default, or, with `global.converted_user_id` = `hash`, a stable 64-character
 * keyed hash of it.
 */
const DEVICE = 'd3v1ce0c0ffee5eed0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4';
const SESSION = '7b0c2f4e-1d2a-4c3b-9e8f-0a1b2c3d4e5f';
const CLAUDE_CODE_USER = JSON.stringify({ device_id: DEVICE, account_uuid: '', session_id: SESSION });

describe('relay: the end-user id on converted calls', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let anthropic: Anthropic;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    const { apiKey } = await seedToken(server.ctx, { userId, unlimited: true });
    anthropic = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: ['gpt-4.1-nano-2025-04-14'] });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: ['gpt-5-codex'],
      setting: { responses_api: true },
      autoBan: false,
    });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  /** What the upstream received as `user` for a Claude Code call to `model` (chat or Responses upstream). */
  async function userSentFor(model: string, path: RegExp): Promise<unknown> {
    const before = mock.requests.length;
    await anthropic.messages
      .create({
        model,
        max_tokens: 16,
        metadata: { user_id: CLAUDE_CODE_USER },
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch(() => null); // the Responses upstream of this mock answers 404; what it was sent is what counts
    const sent = mock.requests.slice(before).filter((r) => path.test(r.path));
    expect(sent).toHaveLength(1);
    const body = sent[0].body as Record<string, unknown>;
    expect(JSON.stringify(body)).not.toContain(DEVICE);
    expect(JSON.stringify(body)).not.toContain(SESSION);
    return body.user;
  }

  it('sends no user by default, to OpenAI chat and to Responses', async () => {
    expect(await userSentFor('gpt-4.1-nano-2025-04-14', /\/chat\/completions$/)).toBeUndefined();
    expect(await userSentFor('gpt-5-codex', /\/responses$/)).toBeUndefined();
    expect(server.ctx.options.get('global.converted_user_id')).toBe('none');
  });

  it('sends a stable hash of at most 64 characters when the operator asks for one', async () => {
    await server.ctx.options.set('global.converted_user_id', 'hash');
    try {
      const chat = await userSentFor('gpt-4.1-nano-2025-04-14', /\/chat\/completions$/);
      const again = await userSentFor('gpt-4.1-nano-2025-04-14', /\/chat\/completions$/);
      const responses = await userSentFor('gpt-5-codex', /\/responses$/);
      expect(chat).toMatch(/^[0-9a-f]{64}$/);
      expect(again).toBe(chat);
      expect(responses).toBe(chat);
    } finally {
      await server.ctx.options.set('global.converted_user_id', 'none');
    }
  });
});
