import type OpenAI from 'openai';
import type { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import * as dify from './support/mock-dify.ts';
import { charged, failed, providerSuite } from './support/provider-harness.ts';

/**
 * Dify channels (type 37) made in the console: an app's chat endpoint, always called streaming (a non-stream
 * client gets the stream collected), the conversation folded into one query, usage from message_end billed,
 * an agent app's closing message not doubled, Dify's errors mapped, the key check and the channel test.
 */
describe('provider: Dify', () => {
  const env = providerSuite({
    mock: dify.startDifyMock,
    prices: {
      models: Object.fromEntries(
        ['dify-chat', 'dify-agent', 'dify-quota', 'dify-badkey'].map((m) => [m, { ratio: 1, completion: 2 }]),
      ),
      group: 2,
    },
    channels: (mock) => ({
      // Dify shows its API base with /v1; the adapter takes it either way.
      'dify-chat': {
        type: 37,
        key: dify.DIFY_KEY,
        base_url: `${mock.url}/v1`,
        models: ['dify-chat'],
        setting: { inputs: { lang: 'en' }, user: 'gateway-user' },
      },
      'dify-agent': { type: 37, key: dify.DIFY_AGENT_KEY, base_url: mock.url, models: ['dify-agent'] },
    }),
  });

  const last = () => env.mock.requests.at(-1);
  const chatQuota = () =>
    env.quota('dify-chat', dify.CHAT_USAGE.prompt_tokens, dify.CHAT_USAGE.completion_tokens);

  it('answers a plain chat from the collected stream, with the app key and the channel’s inputs and user', async () => {
    const { result, log, user, token } = await charged(env, () =>
      env
        .openai()
        .chat.completions.create({ model: 'dify-chat', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(result.choices[0].message.content).toBe(dify.CHAT_ANSWER.join(''));
    expect(result.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 5 });
    expect(last()?.path).toBe('/v1/chat-messages');
    expect(last()?.headers.authorization).toBe(`Bearer ${dify.DIFY_KEY}`);
    expect(last()?.body).toEqual({
      inputs: { lang: 'en' },
      query: 'Hi',
      response_mode: 'streaming',
      user: 'gateway-user',
      conversation_id: '',
      auto_generate_name: false,
    });
    // (30 + 5 x 2) x 1 x 2 = 80
    expect(chatQuota()).toBe(80);
    expect(log).toMatchObject({ quota: 80, prompt_tokens: 30, completion_tokens: 5, is_stream: 0 });
    expect(user).toBe(80);
    expect(token).toBe(80);
  });

  it('streams a chat to the OpenAI client with usage, and bills it', async () => {
    const { result, log } = await charged(env, async () => {
      const stream = await env.openai().chat.completions.create({
        model: 'dify-chat',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi' }],
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      return { text, usage };
    });
    expect(result.text).toBe(dify.CHAT_ANSWER.join(''));
    expect(result.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 5 });
    expect(log).toMatchObject({ quota: chatQuota(), is_stream: 1 });
  });

  it('folds the system prompt and earlier turns into the query, and passes the client’s user as a hash', async () => {
    // The client's user goes to Dify only as the keyed hash the operator chose (relay-end-user.test.ts).
    await env.server.ctx.options.set('global.converted_user_id', 'hash');
    await env.openai().chat.completions.create({
      model: 'dify-chat',
      user: 'alice',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What is 2+2?' },
        { role: 'assistant', content: '4.' },
        { role: 'user', content: 'And 3+3?' },
      ],
    });
    expect(last()?.body).toMatchObject({
      query: 'Be brief.\n\nUser: What is 2+2?\n\nAssistant: 4.\n\nUser: And 3+3?',
    });
    expect(last()?.body.user).toMatch(/^[0-9a-f]{64}$/);
    await env.server.ctx.options.set('global.converted_user_id', 'none');
  });

  it('serves an agent app (which refuses blocking) without doubling its closing message', async () => {
    const plain = await charged(env, () =>
      env
        .openai()
        .chat.completions.create({ model: 'dify-agent', messages: [{ role: 'user', content: 'Weather?' }] }),
    );
    expect(plain.result.choices[0].message.content).toBe(dify.AGENT_ANSWER.join(''));
    expect(last()?.body).toMatchObject({ response_mode: 'streaming', user: 'modelgate' });
    expect(plain.log.quota).toBe(
      env.quota('dify-agent', dify.AGENT_USAGE.prompt_tokens, dify.AGENT_USAGE.completion_tokens),
    );

    const streamed = await charged(env, () =>
      env
        .anthropic()
        .messages.stream({
          model: 'dify-agent',
          max_tokens: 100,
          system: 'Answer in English.',
          messages: [{ role: 'user', content: 'Weather?' }],
        })
        .finalMessage(),
    );
    expect(streamed.result.content).toMatchObject([{ type: 'text', text: dify.AGENT_ANSWER.join('') }]);
    expect(streamed.result.usage).toMatchObject({ input_tokens: 50, output_tokens: 4 });
    expect(last()?.body.query).toBe('Answer in English.\n\nUser: Weather?');
    expect(streamed.log).toMatchObject({ is_stream: 1, prompt_tokens: 50, completion_tokens: 4 });
  });

  it('maps Dify’s errors into the client’s protocol, without the key, and charges nothing', async () => {
    await env.channel({
      type: 37,
      name: 'quota',
      key: dify.DIFY_QUOTA_KEY,
      base_url: env.mock.url,
      models: ['dify-quota'],
    });
    const badKey = 'app-Unknown0123456789abcd';
    await env.channel({
      type: 37,
      name: 'bad',
      key: badKey,
      base_url: env.mock.url,
      models: ['dify-badkey'],
    });
    const before = await env.balances();

    const quota = (await failed(
      env.openai().chat.completions.create({
        model: 'dify-quota',
        stream: true,
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    )) as APIError;
    // An error event in a 200 stream, code provider_quota_exceeded: out of quota, whatever its status says.
    expect(quota.status).toBe(429);
    expect(quota.type).toBe('insufficient_quota');
    expect(quota.message).toContain('quota for Dify Hosted Model Provider has been exhausted');
    expect(quota.message).not.toContain(dify.DIFY_QUOTA_KEY);

    const bad = (await failed(
      env.anthropic().messages.create({
        model: 'dify-badkey',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
      }),
    )) as { status: number; message: string; error: any };
    // The channel's key was refused, not the caller's: the gateway's own 503.
    expect(bad.status).toBe(503);
    expect(bad.error).toMatchObject({ error: { type: 'overloaded_error' } });
    expect(bad.message).toContain('refused the credentials of the channel');
    expect(bad.message).not.toContain(badKey);
    expect(await env.balances()).toEqual(before);
  });

  it('refuses a key of the wrong shape when the channel is saved', async () => {
    const body = { type: 37, name: 'wrong', base_url: env.mock.url, models: ['dify-chat'] };
    await env.expectRefusedKeys(body, ['sk-not-a-dify-key'], /Dify keys are an app's API key: app-/);
  });

  it('passes the channel test', async () => {
    const t = await env.admin.get(`/api/channel/test/${env.ids['dify-chat']}`);
    expect(t.success, t.message).toBe(true);
    expect(last()?.body).toMatchObject({ query: 'hi', response_mode: 'streaming' });
  });
});
