import type OpenAI from 'openai';
import type { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import {
  ANSWER,
  BOT_ID,
  COZE_KEY,
  FAILING_BOT,
  REASONING,
  REASONING_BOT,
  startCozeMock,
  USAGE,
} from './support/mock-coze.ts';
import { charged, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Coze channels (type 49) made in the console: a bot (the mapped model name is its id) reached by streaming
 * Chat v3 (a non-stream client gets the stream collected), usage from conversation.chat.completed billed,
 * reasoning as thinking, images by URL as object_string, Coze's code-in-a-200 errors and failed chats mapped,
 * the key check and the channel test.
 */
describe('provider: Coze', () => {
  const env = providerSuite({
    mock: startCozeMock,
    prices: {
      models: {
        'coze-bot': { ratio: 1.5, completion: 2 },
        'coze-thinker': { ratio: 1.5, completion: 2 },
        'coze-failing': { ratio: 1, completion: 1 },
        'coze-badkey': { ratio: 1, completion: 1 },
      },
      group: 2,
    },
    channels: (mock) => ({
      coze: {
        type: 49,
        key: COZE_KEY,
        base_url: mock.url,
        models: ['coze-bot', 'coze-thinker', 'coze-failing'],
        model_mapping: { 'coze-bot': BOT_ID, 'coze-thinker': REASONING_BOT, 'coze-failing': FAILING_BOT },
      },
    }),
  });

  const last = () => env.mock.requests.at(-1);

  it('answers a plain chat from the collected stream of the mapped bot, billed to the unit', async () => {
    const { result, log, user, token } = await charged(env, () =>
      env.openai().chat.completions.create({
        model: 'coze-bot',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      }),
    );
    expect(result.choices[0].message.content).toBe(ANSWER.join(''));
    expect(result.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 6 });
    expect(last()?.headers.authorization).toBe(`Bearer ${COZE_KEY}`);
    expect(last()?.body).toEqual({
      bot_id: BOT_ID,
      user_id: 'modelgate',
      stream: true,
      additional_messages: [
        { role: 'user', type: 'question', content: 'Be brief.\n\nHi', content_type: 'text' },
      ],
    });
    // (40 + 6 x 2) x 1.5 x 2 = 156
    const quota = env.quota('coze-bot', USAGE.input_count, USAGE.output_count);
    expect(quota).toBe(156);
    expect(log).toMatchObject({
      quota,
      prompt_tokens: 40,
      completion_tokens: 6,
      is_stream: 0,
      model_name: 'coze-bot',
    });
    expect(user).toBe(quota);
    expect(token).toBe(quota);
  });

  it('streams to the OpenAI client with usage, and sends history and images by URL', async () => {
    // The client's user goes to Coze only as the keyed hash the operator chose (relay-end-user.test.ts).
    await env.server.ctx.options.set('global.converted_user_id', 'hash');
    const { result, log } = await charged(env, async () => {
      const stream = await env.openai().chat.completions.create({
        model: 'coze-bot',
        stream: true,
        stream_options: { include_usage: true },
        user: 'alice',
        messages: [
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi, how can I help?' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            ],
          },
        ],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage };
    });
    // The completed message repeating the deltas, the verbose and the follow-up messages are not the answer.
    expect(result.text).toBe(ANSWER.join(''));
    expect(result.usage).toMatchObject({ prompt_tokens: 40, completion_tokens: 6 });
    expect(log).toMatchObject({ quota: 156, is_stream: 1 });
    const sent = last()?.body;
    expect(sent.user_id).toMatch(/^[0-9a-f]{64}$/);
    await env.server.ctx.options.set('global.converted_user_id', 'none');
    expect(sent.additional_messages.slice(0, 2)).toEqual([
      { role: 'user', type: 'question', content: 'Hello', content_type: 'text' },
      { role: 'assistant', type: 'answer', content: 'Hi, how can I help?', content_type: 'text' },
    ]);
    expect(sent.additional_messages[2]).toMatchObject({ role: 'user', content_type: 'object_string' });
    expect(JSON.parse(sent.additional_messages[2].content)).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', file_url: 'https://example.com/cat.png' },
    ]);
  });

  it('gives a reasoning bot’s thinking to the Anthropic SDK as a thinking block', async () => {
    const { result, log } = await charged(env, () =>
      env
        .anthropic()
        .messages.stream({
          model: 'coze-thinker',
          max_tokens: 200,
          messages: [{ role: 'user', content: 'Why?' }],
        })
        .finalMessage(),
    );
    expect(result.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(result.content[0]).toMatchObject({ thinking: REASONING.join('') });
    expect(result.content[1]).toMatchObject({ text: ANSWER.join('') });
    expect(result.usage).toMatchObject({ input_tokens: 40, output_tokens: 6 });
    expect(log.quota).toBe(env.quota('coze-thinker', 40, 6));

    const plain = await env.openai().chat.completions.create({
      model: 'coze-thinker',
      messages: [{ role: 'user', content: 'Why?' }],
    });
    const msg = plain.choices[0].message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(msg.reasoning_content).toBe(REASONING.join(''));
    expect(msg.content).toBe(ANSWER.join(''));
  });

  it('maps Coze’s code in a 200 and a failed chat into the client’s protocol, charging nothing', async () => {
    const badKey = 'pat_Unknown0123456789abcdefGHIJKLmnop';
    await env.channel({
      type: 49,
      name: 'bad',
      key: badKey,
      base_url: env.mock.url,
      models: ['coze-badkey'],
    });
    const before = await env.balances();

    const auth = (await failed(
      env
        .openai()
        .chat.completions.create({ model: 'coze-badkey', messages: [{ role: 'user', content: 'x' }] }),
    )) as APIError;
    // The channel's key was refused, not the caller's: the gateway's own 503 (issue: console figures, point 6).
    expect(auth.status).toBe(503);
    expect(auth.message).toContain('refused the credentials of the channel');
    expect(auth.message).toMatch(/request id/);
    expect(auth.message).not.toContain(badKey);

    const chat = (await failed(
      env.anthropic().messages.create({
        model: 'coze-failing',
        max_tokens: 10,
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }),
    )) as { status: number; message: string; error: any };
    // The chat failed with code 4013 (too frequent) before any text: a rate limit, as a 429.
    expect(chat.status).toBe(429);
    expect(chat.error).toMatchObject({ error: { type: 'rate_limit_error' } });
    expect(chat.message).toContain('Request frequency exceeded the limit');
    expect(await env.balances()).toEqual(before);
  });

  it('refuses a key of the wrong shape when the channel is saved', async () => {
    const body = { type: 49, name: 'wrong', base_url: env.mock.url, models: ['coze-bot'] };
    await env.expectRefusedKeys(
      body,
      ['sk-1234567890'],
      /Coze keys are a personal access token \(pat_\.\.\.\)/,
    );
  });

  it('passes the channel test', async () => {
    const t = await env.admin.get(`/api/channel/test/${env.ids.coze}`);
    expect(t.success, t.message).toBe(true);
    expect(last()?.body).toMatchObject({
      bot_id: BOT_ID,
      stream: true,
      additional_messages: [{ role: 'user', content: 'hi', content_type: 'text' }],
    });
  });
});
