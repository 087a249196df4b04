import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openAiRelay } from './support/openai-relay.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import { startServer } from './support/server.ts';

/**
 * The OpenAI chat completions endpoint through the gateway with the official client, against a mock upstream
 * that replays the recorded provider responses: plain, streamed, with tool calls and images, and to an Azure
 * channel. Each case checks the answer, the usage log row and the quota charged, worked out by hand from the
 * recorded usage and the built-in prices (ratio 1 = $0.002 / 1K tokens). The other endpoints:
 * relay-openai-endpoints.test.ts.
 */
describe('relay: OpenAI endpoints', () => {
  const relay = openAiRelay(startServer);

  it('relays a plain chat completion and charges the recorded usage to the unit', async () => {
    const before = await relay.balances();
    const { data, response } = await relay.client.chat.completions
      .create({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [{ role: 'user', content: 'Invent a new holiday.' }],
      })
      .withResponse();
    expect(data.choices[0].message.content).toContain('Galaxy Day');
    expect(data.usage?.completion_tokens).toBe(363);
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    // (16 prompt + 363 completion x 4) x 0.05 = 73.4 -> 73
    expect(log.quota).toBe(73);
    expect(log.prompt_tokens).toBe(16);
    expect(log.completion_tokens).toBe(363);
    expect(log.type).toBe(2);
    expect(log.is_stream).toBe(0);
    expect(log.model_name).toBe('gpt-4.1-nano-2025-04-14');
    const other = JSON.parse(log.other);
    expect(other).toMatchObject({
      model_ratio: 0.05,
      completion_ratio: 4,
      group_ratio: 1,
      model_price: -1,
      cache_tokens: 0,
      cache_ratio: 0.25,
    });
    expect(other.admin_info.use_channel).toHaveLength(1);
    const after = await relay.balances();
    expect(before.user.quota - after.user.quota).toBe(73);
    expect(after.user.used_quota - before.user.used_quota).toBe(73);
    expect(after.user.request_count - before.user.request_count).toBe(1);
    expect(before.token.remain_quota - after.token.remain_quota).toBe(73);
    expect(after.token.used_quota - before.token.used_quota).toBe(73);
  });

  it('bills DeepSeek, xAI (reasoning and cached tokens) and Mistral recordings by the formula', async () => {
    const cases: Array<[string, number, number, number]> = [
      // (13 + 300 x 4) x 0.135 = 163.755 -> 164
      ['deepseek-chat', 164, 13, 300],
      // xAI counts 228 reasoning tokens only in total_tokens (241): completion = 241 - 12 = 229; 2 of 12 prompt tokens cached.
      // (10 + 2 x 0.25 + 229 x 1.6667) x 0.15 = 58.826... -> 59
      ['grok-3-mini', 59, 12, 229],
      // (13 + 434 x 3) x 0.05 = 65.75 -> 66
      ['mistral-small-latest', 66, 13, 434],
    ];
    for (const [model, quota, prompt, completion] of cases) {
      const { response } = await relay.client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
      expect({
        model,
        quota: log.quota,
        prompt: log.prompt_tokens,
        completion: log.completion_tokens,
      }).toEqual({ model, quota, prompt, completion });
    }
  });

  it('streams chunk by chunk, asks upstream for usage, and hides the usage chunk the client did not ask for', async () => {
    relay.mock.requests.length = 0;
    const stream = await relay.client.chat.completions.create({
      model: 'gpt-4.1-nano-2025-04-14',
      stream: true,
      messages: [{ role: 'user', content: 'Invent a new holiday.' }],
    });
    let text = '';
    let chunks = 0;
    let sawUsage = false;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(chunks).toBeGreaterThan(290);
    expect(text.length).toBeGreaterThan(500);
    expect(sawUsage).toBe(false);
    expect(relay.mock.requests[0].body.stream_options).toEqual({ include_usage: true });
    const rows = await relay.server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    await flushLedger(relay.server.ctx);
    const log = await relay.server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.id).not.toBe(rows[0]?.id);
    // (16 + 300 x 4) x 0.05 = 60.8 -> 61
    expect(log.quota).toBe(61);
    expect(log.is_stream).toBe(1);
    expect(log.first_time).toBeGreaterThan(0);
  });

  it('streams tool calls and passes the usage chunk through when the client asks for it', async () => {
    const stream = await relay.client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'What is the weather in Berlin?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
    });
    let usage: OpenAI.CompletionUsage | undefined;
    let toolName = '';
    let args = '';
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const call = chunk.choices[0]?.delta?.tool_calls?.[0];
      if (call?.function?.name) toolName = call.function.name;
      args += call?.function?.arguments ?? '';
    }
    expect(toolName).not.toBe('');
    expect(args.length).toBeGreaterThan(0);
    expect(usage).toMatchObject({ prompt_tokens: 58, completion_tokens: 12 });
    await flushLedger(relay.server.ctx);
    const log = await relay.server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // (58 + 12 x 4) x 1.25 = 132.5 -> 133 (half away from zero)
    expect(log.quota).toBe(133);
  });

  it('relays tool calls without streaming (Mistral recording)', async () => {
    const { data, response } = await relay.client.chat.completions
      .create({
        model: 'mistral-small-latest',
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [
          { type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: {} } } },
        ],
      })
      .withResponse();
    expect(data.choices[0].message.tool_calls?.length).toBeGreaterThan(0);
    const log = await relay.logOf(response.headers.get('x-oneapi-request-id'));
    // (124 + 22 x 3) x 0.05 = 9.5 -> 10
    expect(log.quota).toBe(10);
  });

  it('accepts vision content parts', async () => {
    const { data } = await relay.client.chat.completions
      .create({
        model: 'gpt-4.1-nano-2025-04-14',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in this image?' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            ],
          },
        ],
      })
      .withResponse();
    expect(data.choices[0].message.content).toBeTruthy();
    const sent = relay.mock.requests.at(-1)?.body;
    expect(sent.messages[0].content[1].type).toBe('image_url');
  });

  it('calls Azure channels at their deployment URL with the api-version and api-key', async () => {
    await seedChannel(relay.server.ctx, {
      type: 3,
      baseUrl: relay.mock.url,
      key: 'azure-key-123',
      models: ['gpt-4.1-mini'],
      other: '2024-10-21',
    });
    relay.mock.requests.length = 0;
    const answer = await relay.client.chat.completions.create({
      model: 'gpt-4.1-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices.length).toBeGreaterThan(0);
    const seen = relay.mock.requests[0];
    expect(seen.path).toBe('/openai/deployments/gpt-41-mini/chat/completions');
    expect(seen.query).toBe('api-version=2024-10-21');
    expect(seen.headers['api-key']).toBe('azure-key-123');
    expect(seen.headers.authorization).toBeUndefined();
  });
});
