import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ClientFormat } from './support/format-clients.ts';
import {
  chatBody,
  MODEL,
  responseCacheRelay,
  TOOLS_CHAT,
  type Upstream,
} from './support/response-cache-relay.ts';
import { startServer } from './support/server.ts';

/**
 * What the response cache keeps, over HTTP with the official SDKs of every client format, against mock upstreams
 * that replay recorded answers: a repeated request is answered without reaching an upstream (their request
 * counts do not move), in the caller's format, JSON and streamed, with the same bytes; other users, tool calls,
 * errors and n > 1 are not served from it. Who it is on for, what a hit costs, /metrics and the TTL:
 * relay-response-cache-options.test.ts.
 */
/** Client format -> upstream pairs: each format relayed as is, and converted ones. */
const PAIRS: Array<[ClientFormat, Upstream]> = [
  ['openai', 'chat'],
  ['openai', 'anthropic'],
  ['anthropic', 'anthropic'],
  ['anthropic', 'gemini'],
  ['gemini', 'gemini'],
  ['gemini', 'responses'],
  ['responses', 'responses'],
  ['responses', 'anthropic'],
];

describe('response cache', () => {
  const relay = responseCacheRelay(startServer);

  for (const [format, upstream] of PAIRS)
    for (const stream of [false, true])
      it(`${format} client, ${upstream} channel, ${stream ? 'streamed' : 'JSON'}: the repeat never reaches the upstream; another user's does`, async () => {
        const model = MODEL[upstream];
        const first = await relay.kept(() =>
          relay.counted(() => relay.ask(format, relay.alice, model, { stream })),
        );
        expect(first.upstream).toBe(1);
        expect(first.out.text.length).toBeGreaterThan(0);
        const again = await relay.counted(() => relay.ask(format, relay.alice, model, { stream }));
        expect(again.upstream).toBe(0);
        expect(again.out).toEqual(first.out);
        const other = await relay.counted(() => relay.ask(format, relay.bob, model, { stream }));
        expect(other.upstream).toBe(1);
        expect(other.out.text).toBe(first.out.text);
      });

  it('says hit or miss in X-ModelGate-Cache, and replays the same bytes', async () => {
    const body = chatBody('headers, please');
    const miss = await relay.kept(() => relay.postChat(relay.alice, body));
    expect(miss.status).toBe(200);
    expect(miss.headers.get('x-modelgate-cache')).toBe('miss');
    const missText = await miss.text();
    const before = relay.upstreamCalls();
    const hit = await relay.postChat(relay.alice, {
      messages: body.messages,
      model: body.model,
      user: 'someone-else',
    });
    expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
    expect(hit.headers.get('content-type')).toContain('application/json');
    expect(await hit.text()).toBe(missText);
    expect(relay.upstreamCalls()).toBe(before);
  });

  it('keeps embeddings (with the official client) and rerank answers', async () => {
    const client = new OpenAI({
      apiKey: relay.alice.apiKey,
      baseURL: `${relay.server.url}/v1`,
      maxRetries: 0,
    });
    const embed = () => client.embeddings.create({ model: 'rc-embed', input: ['cached vectors', 'two'] });
    const first = await relay.kept(() => relay.counted(embed));
    expect(first.upstream).toBe(1);
    const again = await relay.counted(embed);
    expect(again.upstream).toBe(0);
    expect(again.out).toEqual(first.out);

    const rerank = () =>
      fetch(`${relay.server.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${relay.alice.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rc-rerank', query: 'q', documents: ['a', 'b'] }),
      }).then(async (r) => ({
        status: r.status,
        cache: r.headers.get('x-modelgate-cache'),
        body: await r.json(),
      }));
    const r1 = await relay.kept(() => relay.counted(rerank));
    expect(r1.out).toMatchObject({ status: 200, cache: 'miss' });
    const r2 = await relay.counted(rerank);
    expect(r2.upstream).toBe(0);
    expect(r2.out).toEqual({ ...r1.out, cache: 'hit' });
  });

  it('replays a stream as the same SSE frames, with its content type, for a relayed and a converted channel', async () => {
    for (const model of [MODEL.chat, MODEL.anthropic]) {
      const body = chatBody('stream headers', { model, stream: true });
      const miss = await relay.kept(() => relay.postChat(relay.alice, body));
      expect(miss.headers.get('x-modelgate-cache')).toBe('miss');
      const missText = await miss.text();
      expect(missText).toContain('data: [DONE]');
      const before = relay.upstreamCalls();
      const hit = await relay.postChat(relay.alice, body);
      expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
      expect(hit.headers.get('content-type')).toContain('text/event-stream');
      expect(await hit.text()).toBe(missText);
      expect(relay.upstreamCalls()).toBe(before);
    }
  });

  it('does not keep tool calls the client must run (chat, Anthropic and Responses clients, JSON and streamed)', async () => {
    const cases: Array<[ClientFormat, string, boolean]> = [
      ['openai', MODEL.chat, true],
      ['anthropic', MODEL.anthropic, false],
      ['anthropic', MODEL.anthropic, true],
      ['responses', MODEL.anthropic, false],
      ['responses', MODEL.anthropic, true],
    ];
    for (const [format, model, stream] of cases) {
      const first = await relay.counted(() => relay.ask(format, relay.alice, model, { tools: true, stream }));
      expect(first.out.calls.length).toBeGreaterThan(0);
      const again = await relay.counted(() => relay.ask(format, relay.alice, model, { tools: true, stream }));
      expect(again.upstream).toBe(1);
    }
    // A chat answer in JSON whose only content is a tool call (Mistral's recording).
    const body = chatBody('weather?', {
      model: TOOLS_CHAT,
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
    });
    for (let i = 0; i < 2; i++) {
      const res = await relay.postChat(relay.alice, body);
      expect(res.headers.get('x-modelgate-cache')).toBe('miss');
      expect(((await res.json()) as any).choices[0].message.tool_calls.length).toBe(1);
    }
  });

  it('does not keep errors', async () => {
    for (let i = 0; i < 2; i++) {
      const before = relay.chatMock.requests.length;
      const res = await relay.postChat(relay.alice, { ...chatBody('an error'), model: 'rc-error' });
      expect(res.status).toBe(429);
      expect(relay.chatMock.requests.length).toBe(before + 1);
    }
  });

  it('does not keep answers with n > 1 unless the operator allows it', async () => {
    const body = chatBody('two answers', { n: 2 });
    for (let i = 0; i < 2; i++) {
      const before = relay.upstreamCalls();
      expect((await relay.postChat(relay.alice, body)).status).toBe(200);
      expect(relay.upstreamCalls()).toBe(before + 1);
    }
    await relay.server.ctx.options.set('response_cache.multiple_choices_enabled', 'true');
    try {
      const before = relay.upstreamCalls();
      expect((await relay.kept(() => relay.postChat(relay.alice, body))).status).toBe(200);
      expect((await relay.postChat(relay.alice, body)).headers.get('x-modelgate-cache')).toBe('hit');
      expect(relay.upstreamCalls()).toBe(before + 1);
    } finally {
      await relay.server.ctx.options.set('response_cache.multiple_choices_enabled', 'false');
    }
  });
});
