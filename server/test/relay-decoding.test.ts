import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Compressed request bodies (Content-Encoding gzip or br) are decoded; the body limit counts decoded bytes. */
describe('relay: compressed request bodies', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let apiKey: string;
  const MODEL = 'gpt-4.1-nano-2025-04-14';
  const chat = JSON.stringify({
    model: MODEL,
    messages: [{ role: 'user', content: 'Invent a new holiday.' }],
  });

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { MAX_REQUEST_BODY_MB: '1' } });
    const userId = (await seedUser(server.ctx, { quota: 10_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, remain: 10_000_000 })).apiKey;
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  const post = (body: Buffer | string, encoding: string) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        'content-encoding': encoding,
      },
      body,
    });

  it('answers gzip and br bodies as if they were sent plain', async () => {
    for (const [encoding, body] of [
      ['gzip', gzipSync(chat)],
      ['br', brotliCompressSync(chat)],
    ] as const) {
      mock.requests.length = 0;
      const res = await post(body, encoding);
      expect({ encoding, status: res.status }).toEqual({ encoding, status: 200 });
      const json = (await res.json()) as any;
      expect(json.choices[0].message.content).toContain('Galaxy Day');
      // The upstream gets the decoded JSON, not the compressed bytes.
      expect(mock.requests[0].body.messages[0].content).toBe('Invent a new holiday.');
    }
  });

  it('refuses a corrupt body, an unknown encoding and a body that expands past the limit, sending nothing upstream', async () => {
    mock.requests.length = 0;
    const corrupt = await post(Buffer.from('definitely not gzip'), 'gzip');
    expect(corrupt.status).toBe(400);
    expect(((await corrupt.json()) as any).error.message).toContain('could not be decompressed');

    const zstd = await post(chat, 'zstd');
    expect(zstd.status).toBe(415);
    expect(((await zstd.json()) as any).error.code).toBe('unsupported_content_encoding');

    const huge = JSON.stringify({
      model: MODEL,
      messages: [{ role: 'user', content: ' '.repeat(3_000_000) }],
    });
    const bomb = gzipSync(huge);
    expect(bomb.length).toBeLessThan(100_000);
    const tooBig = await post(bomb, 'gzip');
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as any).error.code).toBe('request_too_large');
    expect(mock.requests).toHaveLength(0);
  });
});
