import { channelTypeInfo } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { fixtureChunks, fixtureJson } from './support/fixtures.ts';
import { startFormatsMock } from './support/mock-formats.ts';
import { billOneTwo, providerSuite, streamChat } from './support/provider-harness.ts';

/**
 * Google PaLM2 (type 11, deprecated, served by the Gemini API) channels made by an admin through the console,
 * used with the official OpenAI client against a Gemini mock that checks the API key. The charge is compared
 * with the recording's usage priced by hand (prompt + 2 x completion).
 */

/** Gemini's text recording, as the hub counts it: output includes the thought tokens. */
const GEMINI_TEXT = fixtureJson('google/generate-content/text.json');
const GEMINI_USAGE = {
  prompt: GEMINI_TEXT.usageMetadata.promptTokenCount,
  completion: GEMINI_TEXT.usageMetadata.candidatesTokenCount + GEMINI_TEXT.usageMetadata.thoughtsTokenCount,
};
const STRAWBERRY = [{ role: 'user' as const, content: 'How many r are in strawberry?' }];

describe('Google PaLM2 channels (deprecated, served by Gemini)', () => {
  const t = providerSuite({
    mock: startFormatsMock,
    prices: ['chat-bison-001', 'PaLM-2', 'embedding-gecko-001', 'palm-mapped'],
    channels: (gemini) => ({
      palm: {
        type: 11,
        key: 'gm-mock',
        base_url: gemini.url,
        models: ['chat-bison-001', 'PaLM-2', 'embedding-gecko-001'],
      },
      'palm-mapped': {
        type: 11,
        key: 'gm-mock',
        base_url: gemini.url,
        models: ['palm-mapped'],
        model_mapping: { 'palm-mapped': 'gemini-2.5-pro' },
      },
    }),
  });

  it('is marked deprecated', () => {
    expect(channelTypeInfo(11)?.deprecated).toMatch(/PaLM API/);
  });

  it('serves a PaLM model name with gemini-2.0-flash, plain and streamed, with usage', async () => {
    const ask = { model: 'chat-bison-001', messages: STRAWBERRY };
    await t.billedChat(
      ask,
      billOneTwo(GEMINI_USAGE, t.ids.palm),
      GEMINI_TEXT.candidates[0].content.parts[0].text,
    );
    const call = t.mock.requests.at(-1);
    expect(call?.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(call?.headers['x-goog-api-key']).toBe('gm-mock');

    const chunks = fixtureChunks('google/generate-content/text.chunks.txt').map((c) => JSON.parse(c));
    const expected = chunks
      .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
      .filter((p: any) => !p.thought)
      .map((p: any) => p.text ?? '')
      .join('');
    const s = await streamChat(t.openai(), { model: 'PaLM-2', messages: STRAWBERRY });
    expect(s.text).toBe(expected);
    expect(t.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent');
    expect(t.mock.requests.at(-1)?.query).toContain('alt=sse');
  });

  it('follows the channel model mapping instead', async () => {
    const r = await t.ask('palm-mapped');
    expect(r.choices[0].message.content).toBe(GEMINI_TEXT.candidates[0].content.parts[0].text);
    expect(t.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
  });

  it('serves embedding-gecko-001 with the Gemini embedding model', async () => {
    const r = await t.openai().embeddings.create({
      model: 'embedding-gecko-001',
      input: ['hello', 'palm'],
      encoding_format: 'float',
    });
    expect(r.data).toHaveLength(2);
    expect(r.data[0].embedding).toEqual([0.05, 0.25, -0.5]);
    expect(t.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('passes the channel test and lists the Gemini models of the key', async () => {
    const test = await t.admin.get(`/api/channel/test/${t.ids.palm}`);
    expect(test.success, test.message).toBe(true);
    expect(t.mock.requests.at(-1)?.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    const models = await t.admin.get(`/api/channel/fetch_models/${t.ids.palm}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual(['gemini-2.5-flash', 'gemini-2.5-pro']);
  });
});
