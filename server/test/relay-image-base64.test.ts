import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Inline image bytes that are not base64 get a 400 in the caller's protocol on every client path (Anthropic
 * Messages, Responses, chat image_url data URLs, Gemini inlineData), converted or not, and nothing goes
 * upstream; valid bytes still pass.
 */
const BAD = '!!!not*base64@@@';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]).toString('base64');
const MODEL = 'gpt-4.1-nano-2025-04-14';

describe('relay: inline image data must be base64', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let apiKey = '';

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, unlimited: true })).apiKey;
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  const openai = () => new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: { status?: number; message?: string; error?: any }) => e,
    );

  it('refuses an Anthropic base64 image source that is not base64, in Anthropic’s shape', async () => {
    const anthropic = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    const ask = (data: string) =>
      anthropic.messages.create({
        model: MODEL,
        max_tokens: 16,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
              { type: 'text', text: 'what is this?' },
            ],
          },
        ],
      });
    const sent = mock.requests.length;
    const err = await failure(ask(BAD));
    expect(err?.status).toBe(400);
    expect(err?.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(err?.message).toContain('messages.0.content.0.source.data');
    expect(mock.requests.length).toBe(sent);
    expect((await ask(PNG)).content.length).toBeGreaterThan(0);
    expect(mock.requests.length).toBe(sent + 1);
  });

  it('refuses a Responses input_image data URL that is not base64, in OpenAI’s shape', async () => {
    const ask = (data: string) =>
      openai().responses.create({
        model: MODEL,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_image', image_url: `data:image/png;base64,${data}`, detail: 'auto' },
              { type: 'input_text', text: 'what is this?' },
            ],
          },
        ],
      });
    const sent = mock.requests.length;
    const err = await failure(ask(BAD));
    expect(err?.status).toBe(400);
    expect(err?.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value' });
    expect(err?.message).toContain('not valid base64');
    expect(mock.requests.length).toBe(sent);
    // Valid bytes go upstream (this mock serves chat only, so its answer is a 404).
    await failure(ask(PNG));
    expect(mock.requests.length).toBe(sent + 1);
  });

  it('refuses a chat image_url data URL that is not base64', async () => {
    const ask = (data: string) =>
      openai().chat.completions.create({
        model: MODEL,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
              { type: 'text', text: 'what is this?' },
            ],
          },
        ],
      });
    const sent = mock.requests.length;
    const err = await failure(ask(BAD));
    expect(err?.status).toBe(400);
    expect(err?.message).toContain('messages[0].content[0].image_url.url');
    expect(mock.requests.length).toBe(sent);
    expect((await ask(PNG)).choices.length).toBe(1);
  });

  it('refuses Gemini inlineData that is not base64, in Google’s shape', async () => {
    const sent = mock.requests.length;
    const res = await fetch(`${server.url}/v1beta/models/${MODEL}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: BAD } }] }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(mock.requests.length).toBe(sent);
  });
});
