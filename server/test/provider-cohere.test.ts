import type OpenAI from 'openai';
import type { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { countText } from '../src/relay/billing/tokenizer.ts';
import {
  CALL_ARGS,
  CALL_USAGE,
  COHERE_KEY,
  GREETING,
  GREETING_USAGE,
  PLAN,
  RESULT_USAGE,
  startCohereMock,
} from './support/mock-cohere.ts';
import { charged, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Cohere channels (type 34) made in the console and used by the official clients: Chat v2 plain and streamed
 * (OpenAI and Anthropic clients), a tool call round trip, embeddings, rerank, errors mapped into the client's
 * protocol, the key check at save, the channel test and the model list.
 */
describe('provider: Cohere', () => {
  const WEATHER: OpenAI.ChatCompletionTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Current weather in a city',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  };

  const env = providerSuite({
    mock: startCohereMock,
    prices: {
      models: {
        'cohere-chat': { ratio: 0.5, completion: 3 },
        'embed-english-v3.0': { ratio: 0.05, completion: 1 },
        'rerank-v3.5': { ratio: 1, completion: 1 },
        'cohere-expired': { ratio: 1, completion: 1 },
        'cohere-badkey': { ratio: 1, completion: 1 },
      },
      group: 2,
    },
    channels: (mock) => ({
      cohere: {
        type: 34,
        key: COHERE_KEY,
        base_url: mock.url,
        models: ['cohere-chat', 'embed-english-v3.0', 'rerank-v3.5'],
        model_mapping: { 'cohere-chat': 'command-r-08-2024' },
        setting: { input_type: 'search_query' },
      },
    }),
  });

  const lastChat = () => env.mock.requests.filter((r) => r.path === '/v2/chat').at(-1);

  it('relays a plain chat with the Bearer key and charges the billed units to the unit', async () => {
    const { result, log, user, token } = await charged(env, () =>
      env.openai().chat.completions.create({
        model: 'cohere-chat',
        temperature: 0.2,
        top_p: 1,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi there' },
        ],
      }),
    );
    expect(result.choices[0].message.content).toBe(GREETING.join(''));
    expect(result.choices[0].finish_reason).toBe('stop');
    expect(result.usage).toMatchObject({
      prompt_tokens: GREETING_USAGE.input,
      completion_tokens: GREETING_USAGE.output,
    });
    const seen = lastChat();
    expect(seen?.headers.authorization).toBe(`Bearer ${COHERE_KEY}`);
    expect(seen?.body).toMatchObject({
      model: 'command-r-08-2024',
      temperature: 0.2,
      p: 0.99,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi there' },
      ],
    });
    expect(seen?.body.stream).toBeUndefined();
    // (11 + 7 x 3) x 0.5 x 2 = 32
    const quota = env.quota('cohere-chat', GREETING_USAGE.input, GREETING_USAGE.output);
    expect(quota).toBe(32);
    expect(log).toMatchObject({
      quota,
      prompt_tokens: GREETING_USAGE.input,
      completion_tokens: GREETING_USAGE.output,
      model_name: 'cohere-chat',
      is_stream: 0,
    });
    expect(user).toBe(quota);
    expect(token).toBe(quota);
  });

  it('streams a chat to the OpenAI client, with its usage, and bills it', async () => {
    const { result, log, user } = await charged(env, async () => {
      const stream = await env.openai().chat.completions.create({
        model: 'cohere-chat',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi there' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage, finish };
    });
    expect(result.text).toBe(GREETING.join(''));
    expect(result.finish).toBe('stop');
    expect(result.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
    expect(lastChat()?.body.stream).toBe(true);
    expect(log).toMatchObject({ quota: 32, is_stream: 1, prompt_tokens: 11, completion_tokens: 7 });
    expect(user).toBe(32);
  });

  it('runs a tool call round trip: a streamed call with its plan, then the result answered', async () => {
    const first = await charged(env, async () => {
      const stream = await env.openai().chat.completions.create({
        model: 'cohere-chat',
        stream: true,
        tools: [WEATHER],
        tool_choice: 'required',
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
      });
      const calls: Array<{ id: string; name: string; args: string }> = [];
      let reasoning = '';
      let finish: string | null = null;
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta as
          | (OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string })
          | undefined;
        reasoning += d?.reasoning_content ?? '';
        for (const tc of d?.tool_calls ?? []) {
          calls[tc.index] ??= { id: tc.id ?? '', name: tc.function?.name ?? '', args: '' };
          calls[tc.index].args += tc.function?.arguments ?? '';
        }
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      return { calls, reasoning, finish };
    });
    expect(first.result.finish).toBe('tool_calls');
    expect(first.result.reasoning).toBe(PLAN.join(''));
    expect(first.result.calls).toHaveLength(1);
    expect(first.result.calls[0].name).toBe('get_weather');
    expect(JSON.parse(first.result.calls[0].args)).toEqual(JSON.parse(CALL_ARGS.join('')));
    expect(lastChat()?.body).toMatchObject({
      tool_choice: 'REQUIRED',
      tools: [
        { type: 'function', function: { name: 'get_weather', parameters: WEATHER.function.parameters } },
      ],
    });
    expect(first.log.quota).toBe(env.quota('cohere-chat', CALL_USAGE.input, CALL_USAGE.output));

    const call = first.result.calls[0];
    const second = await charged(env, () =>
      env.openai().chat.completions.create({
        model: 'cohere-chat',
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: call.id, type: 'function', function: { name: call.name, arguments: call.args } },
            ],
          },
          { role: 'tool', tool_call_id: call.id, content: '{"temp_c":21}' },
        ],
      }),
    );
    expect(second.result.choices[0].message.content).toBe('The tool said: {"temp_c":21}');
    const sent = lastChat()?.body;
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      tool_calls: [
        { id: call.id, type: 'function', function: { name: 'get_weather', arguments: call.args } },
      ],
    });
    expect(sent.messages[2]).toEqual({
      role: 'tool',
      tool_call_id: call.id,
      content: [{ type: 'text', text: '{"temp_c":21}' }],
    });
    expect(second.log.quota).toBe(env.quota('cohere-chat', RESULT_USAGE.input, RESULT_USAGE.output));
  });

  it('serves the Anthropic SDK on /v1/messages, plain and streamed', async () => {
    const plain = await charged(env, () =>
      env.anthropic().messages.create({
        model: 'cohere-chat',
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi there' }],
      }),
    );
    expect(plain.result.content).toEqual([{ type: 'text', text: GREETING.join('') }]);
    expect(plain.result.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
    expect(plain.result.stop_reason).toBe('end_turn');
    expect(lastChat()?.body).toMatchObject({
      max_tokens: 100,
      messages: [{ role: 'system' }, { role: 'user' }],
    });
    expect(plain.log.quota).toBe(32);

    const streamed = await charged(env, () =>
      env
        .anthropic()
        .messages.stream({
          model: 'cohere-chat',
          max_tokens: 100,
          messages: [{ role: 'user', content: 'Hi' }],
        })
        .finalMessage(),
    );
    expect(streamed.result.content).toMatchObject([{ type: 'text', text: GREETING.join('') }]);
    expect(streamed.result.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
    expect(streamed.log).toMatchObject({ quota: 32, is_stream: 1 });
  });

  it('relays embeddings in Cohere’s shape with the channel’s input type, billed on the billed input tokens', async () => {
    const texts = ['hello world', 'the weather in Paris'];
    const { result, log } = await charged(env, () =>
      env.openai().embeddings.create({ model: 'embed-english-v3.0', input: texts, encoding_format: 'float' }),
    );
    expect(result.data.map((d) => d.embedding)).toEqual(texts.map((t) => [t.length / 10, 0.5, -0.25]));
    expect(result.usage.prompt_tokens).toBe(6);
    const seen = env.mock.requests.at(-1);
    expect(seen?.path).toBe('/v2/embed');
    expect(seen?.body).toEqual({
      model: 'embed-english-v3.0',
      texts,
      input_type: 'search_query',
      embedding_types: ['float'],
    });
    // 6 x 0.05 x 2 = 0.6 -> 1
    expect(log).toMatchObject({ prompt_tokens: 6, quota: 1 });
  });

  it('reranks on /v2/rerank and answers with the documents, as rerank clients expect', async () => {
    const query = 'weather in Paris';
    const documents = ['Paris weather is mild', { text: 'Berlin has rain' }, 'the cat sat'];
    const { result, log } = await charged(env, async () => {
      const res = await fetch(`${env.server.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rerank-v3.5', query, documents, top_n: 2 }),
      });
      return { status: res.status, body: (await res.json()) as any };
    });
    expect(result.status).toBe(200);
    expect(result.body.results).toEqual([
      { index: 0, relevance_score: 0.5, document: { text: 'Paris weather is mild' } },
      { index: 1, relevance_score: 0, document: { text: 'Berlin has rain' } },
    ]);
    expect(env.mock.requests.at(-1)?.body).toEqual({
      model: 'rerank-v3.5',
      query,
      documents: ['Paris weather is mild', 'Berlin has rain', 'the cat sat'],
      top_n: 2,
    });
    // Cohere bills search units: the gateway counts the query and documents as the prompt.
    const prompt = await countText(
      'rerank-v3.5',
      `${query}Paris weather is mild\nBerlin has rain\nthe cat sat`,
    );
    expect(log.prompt_tokens).toBe(prompt);
    expect(log.quota).toBe(env.quota('rerank-v3.5', prompt, 0));
  });

  it('maps Cohere’s refusals of the key into each client’s protocol, without the key', async () => {
    const expired = 'ExpiredKey0123456789abcdefghijklmnopqrst';
    await env.channel({
      type: 34,
      name: 'expired',
      key: expired,
      base_url: env.mock.url,
      models: ['cohere-expired'],
    });
    const bad = 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7M';
    await env.channel({ type: 34, name: 'bad', key: bad, base_url: env.mock.url, models: ['cohere-badkey'] });
    const before = await env.balances();

    const e1 = (await failed(
      env
        .openai()
        .chat.completions.create({ model: 'cohere-expired', messages: [{ role: 'user', content: 'x' }] }),
    )) as APIError;
    // Cohere's own 498 (invalid token) refuses the channel's key, not the caller's: the gateway's own 503.
    expect(e1.status).toBe(503);
    expect(e1.message).toContain('refused the credentials of the channel');
    expect(e1.message).not.toContain('invalid or expired api token');
    expect(e1.message).toMatch(/request id/);
    expect(e1.message).not.toContain(expired);

    const e2 = (await failed(
      env.anthropic().messages.create({
        model: 'cohere-badkey',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    )) as { status: number; message: string; error: any };
    expect(e2.status).toBe(503);
    expect(e2.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    expect(e2.message).toContain('refused the credentials of the channel');
    expect(e2.message).not.toContain(bad);
    expect(await env.balances()).toEqual(before);
  });

  it('refuses a key of the wrong shape when the channel is saved', async () => {
    const body = { type: 34, name: 'wrong', base_url: env.mock.url, models: ['cohere-chat'] };
    await env.expectRefusedKeys(
      body,
      ['co-key with spaces'],
      /Cohere keys are the API key from the Cohere dashboard/,
    );
  });

  it('passes the channel test (chat and embeddings) and lists the account’s models', async () => {
    const t = await env.admin.get(`/api/channel/test/${env.ids.cohere}`);
    expect(t.success, t.message).toBe(true);
    expect(lastChat()?.body).toMatchObject({ model: 'command-r-08-2024', max_tokens: 10 });
    const e = await env.admin.get(`/api/channel/test/${env.ids.cohere}?model=embed-english-v3.0`);
    expect(e.success, e.message).toBe(true);
    expect(env.mock.requests.at(-1)).toMatchObject({ path: '/v2/embed', body: { texts: ['hello world'] } });
    const m = await env.admin.get(`/api/channel/fetch_models/${env.ids.cohere}`);
    expect(m.success, m.message).toBe(true);
    expect(m.data).toEqual(['command-r-08-2024', 'embed-english-v3.0', 'rerank-v3.5']);
    expect(env.mock.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models' });
  });
});
