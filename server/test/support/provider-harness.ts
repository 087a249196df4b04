import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApiReply } from './console-client.ts';
import { charged, type Prices, type ProviderEnv, providerEnv } from './provider-env.ts';

export { charged };

/**
 * The shape every provider test shares, so that a provider's file states only its facts: a mock of the
 * provider that checks what the real one checks, a gateway with a user, a token and prices, the provider's
 * channels made by an admin through the console (so key checks run), and the checks of what a call was billed.
 */
export interface Closable {
  url: string;
  close(): Promise<void>;
}

export type ProviderSuite<M extends Closable> = ProviderEnv & {
  mock: M;
  /** Channel ids by the names the suite gave them. */
  ids: Record<string, number>;
  /** A one-message chat through the OpenAI client. */
  ask(model: string, content?: string): Promise<OpenAI.ChatCompletion>;
  /** The same through the Anthropic client (max_tokens 16). */
  askAnthropic(model: string, o?: { content?: string }): Promise<unknown>;
  /** Runs a call and checks it wrote one log row with the bill, charged to the user and to the token. */
  billed<T>(bill: Bill, call: () => Promise<T>): Promise<T>;
  /** Asks a chat through the OpenAI client: checks the bill, and the answer's text and its usage against it. */
  billedChat(
    body: OpenAI.ChatCompletionCreateParamsNonStreaming,
    bill: Bill,
    text: string,
  ): Promise<OpenAI.ChatCompletion>;
  /** The same streamed, with usage asked for: checks the bill, and the text and usage the stream gave. */
  billedStream(
    body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, 'stream'>,
    bill: Bill,
    text: string,
  ): Promise<ReadStream>;
  /** An Anthropic SDK message: checks the bill, and the answer's one text block and its usage against it. */
  billedMessage(
    body: Anthropic.MessageCreateParamsNonStreaming,
    bill: Bill,
    text: string,
  ): Promise<Anthropic.Message>;
  /** The same streamed through the SDK's stream helper. */
  billedMessageStream(
    body: Anthropic.MessageStreamParams,
    bill: Bill,
    text: string,
  ): Promise<Anthropic.Message>;
  /** Runs calls that fail and checks they wrote no log row and charged nothing. */
  unbilled<T>(calls: () => Promise<T>): Promise<T>;
  /** Saves a channel of each key as the admin and returns the console's answers (for refused keys). */
  saveEach(body: Record<string, unknown>, keys: string[]): Promise<ApiReply[]>;
  /** Saves a channel of each key and checks the console refuses each with a 400 whose message matches `says`. */
  expectRefusedKeys(
    body: Record<string, unknown>,
    keys: string[],
    says: string | RegExp,
  ): Promise<ApiReply[]>;
  /** Asks as each case says and checks the error the client gets. */
  expectErrors(cases: ErrorCase[]): Promise<void>;
};

/**
 * Registers the suite's hooks in the enclosing describe: the mock starts, then the gateway, then the channels
 * (each saved with auto_ban off in group `default`; a refused one fails the suite). Its fields are there from
 * the first test on.
 */
export function providerSuite<M extends Closable>(o: {
  mock: () => Promise<M>;
  /** The prices, or the models to price at `ratioOneCompletionTwo`. */
  prices: Prices | string[];
  channels: (mock: M) => Record<string, Record<string, unknown>>;
}): ProviderSuite<M> {
  const suite = { ids: {} } as ProviderSuite<M>;
  beforeAll(async () => {
    const mock = await o.mock();
    suite.mock = mock;
    const env = await providerEnv(Array.isArray(o.prices) ? ratioOneCompletionTwo(o.prices) : o.prices);
    Object.assign(suite, env);
    suite.ask = (model, content = 'hi') =>
      env.openai().chat.completions.create({ model, messages: [{ role: 'user', content }] });
    suite.askAnthropic = (model, a = {}) =>
      env.anthropic().messages.create({
        model,
        max_tokens: 16,
        messages: [{ role: 'user', content: a.content ?? 'hi' }],
      });
    suite.billed = (bill, call) => billed(env, bill, call);
    suite.billedChat = async (body, bill, text) => {
      const r = await billed(env, bill, () => env.openai().chat.completions.create(body));
      expect(r.choices[0].message.content).toBe(text);
      expect(r.usage?.prompt_tokens).toBe(bill.prompt);
      expect(r.usage?.completion_tokens).toBe(bill.completion);
      return r;
    };
    suite.billedStream = async (body, bill, text) => {
      const streamed = { ...body, stream_options: { include_usage: true } };
      const r = await billed(env, bill, () => streamChat(env.openai(), streamed));
      expect(r.text).toBe(text);
      expect(r.usage?.prompt_tokens).toBe(bill.prompt);
      expect(r.usage?.completion_tokens).toBe(bill.completion);
      return r;
    };
    const answered = (msg: Anthropic.Message, bill: Bill, text: string) => {
      expect(msg.content).toHaveLength(1);
      expect(msg.content[0]).toMatchObject({ type: 'text', text });
      expect(msg.usage.input_tokens).toBe(bill.prompt);
      expect(msg.usage.output_tokens).toBe(bill.completion);
      return msg;
    };
    suite.billedMessage = async (body, bill, text) =>
      answered(await billed(env, bill, () => env.anthropic().messages.create(body)), bill, text);
    suite.billedMessageStream = async (body, bill, text) =>
      answered(
        await billed(env, bill, () => env.anthropic().messages.stream(body).finalMessage()),
        bill,
        text,
      );
    suite.unbilled = (calls) => unbilled(env, calls);
    suite.saveEach = async (body, keys) => {
      const out = [];
      for (const key of keys)
        out.push(await env.admin.post('/api/channel/', { group: 'default', ...body, key }));
      return out;
    };
    suite.expectRefusedKeys = async (body, keys, says) => {
      const answers = await suite.saveEach(body, keys);
      for (const r of answers) {
        expect(r.status, r.message).toBe(400);
        expect(r.success).toBe(false);
        expect(r.message).toMatch(says);
      }
      return answers;
    };
    suite.expectErrors = (cases) => expectErrors(suite, cases);
    for (const [name, body] of Object.entries(o.channels(mock)))
      suite.ids[name] = await env.channel({ name, auto_ban: 0, ...body });
  });
  afterAll(async () => {
    await suite.server?.close();
    await suite.mock?.close();
  });
  return suite;
}

/** What a call should have been billed: its log row's tokens and quota, on the user and on the token. */
export interface Bill {
  prompt: number;
  completion: number;
  quota: number;
  /** The channel the row names, when the test cares which one served it. */
  channel?: number;
}

async function billed<T>(env: ProviderEnv, bill: Bill, call: () => Promise<T>): Promise<T> {
  const c = await charged(env, call);
  expect(c.log.prompt_tokens).toBe(bill.prompt);
  expect(c.log.completion_tokens).toBe(bill.completion);
  expect(c.log.quota).toBe(bill.quota);
  if (bill.channel !== undefined) expect(c.log.channel_id).toBe(bill.channel);
  expect([c.user, c.token, c.userUsed, c.tokenUsed]).toEqual([
    bill.quota,
    bill.quota,
    bill.quota,
    bill.quota,
  ]);
  return c.result;
}

async function unbilled<T>(env: ProviderEnv, calls: () => Promise<T>): Promise<T> {
  const before = await env.lastLogId();
  const was = await env.balances();
  const result = await calls();
  expect(await env.logsAfter(before)).toHaveLength(0);
  expect(await env.balances()).toEqual(was);
  return result;
}

/** An error as the official clients throw it. */
export interface ClientError {
  status?: number;
  message: string;
  type?: string;
  code?: string;
  error?: any;
}

/** The error a call fails with; a call that succeeds fails the test. */
export async function failed(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (err) {
    return err as ClientError;
  }
  throw new Error('the call was expected to fail');
}

/** What an OpenAI chat stream gave: text, thinking, tool calls put together, the finish reason and usage. */
export interface ReadStream {
  text: string;
  reasoning: string;
  /** How many chunks carried text. */
  deltas: number;
  finish: string | null;
  usage?: OpenAI.CompletionUsage;
  calls: Array<{ id?: string; name?: string; args: string }>;
}

/** Streams a chat through the OpenAI client and reads it to the end. */
export async function streamChat(
  client: OpenAI,
  body: Omit<OpenAI.ChatCompletionCreateParamsStreaming, 'stream'>,
  o: { signal?: AbortSignal } = {},
): Promise<ReadStream> {
  const stream = await client.chat.completions.create({ ...body, stream: true }, o);
  const out: ReadStream = { text: '', reasoning: '', deltas: 0, finish: null, calls: [] };
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta as
      | (OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string })
      | undefined;
    if (d?.content) out.deltas++;
    out.text += d?.content ?? '';
    out.reasoning += d?.reasoning_content ?? '';
    for (const tc of d?.tool_calls ?? []) {
      out.calls[tc.index] ??= { args: '' };
      if (tc.id) out.calls[tc.index].id = tc.id;
      if (tc.function?.name) out.calls[tc.index].name = tc.function.name;
      out.calls[tc.index].args += tc.function?.arguments ?? '';
    }
    out.finish = chunk.choices[0]?.finish_reason ?? out.finish;
    if (chunk.usage) out.usage = chunk.usage;
  }
  return out;
}

/** Streams a message through the Anthropic client: the final message and the text deltas as they came. */
export async function streamMessage(client: Anthropic, body: Anthropic.MessageStreamParams) {
  const stream = client.messages.stream(body);
  let deltas = '';
  stream.on('text', (t) => {
    deltas += t;
  });
  const message = await stream.finalMessage();
  return { message, deltas };
}

/** A system prompt and a greeting, in Chinese. */
export const NIHAO = [
  { role: 'system' as const, content: 'You are helpful.' },
  { role: 'user' as const, content: '你好' },
];

/** "Who are you?" in Chinese. */
export const WHO = [{ role: 'user' as const, content: '你是谁' }];

/** The one user message of most calls. */
export const HI = [{ role: 'user' as const, content: 'hi' }];

/** The OpenAI tool most provider tests offer, in the chat format. */
export const CITY_WEATHER: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** A call that fails, and what the client should get. */
export interface ErrorCase {
  /** The client and how it asks: OpenAI chat, the same streamed, Anthropic messages, the same streamed. */
  via: 'chat' | 'chat-stream' | 'messages' | 'messages-stream';
  model: string;
  /** The user message; `hi` by default. */
  content?: string;
  status: number;
  /** The error's type in the client's protocol. */
  type?: string;
  /** Text the error's message holds (the SDK's message, which quotes the body). */
  says?: string;
  /** More checks: `message` is the error's text in the client's protocol (Anthropic's is in the body). */
  check?: (message: string | undefined, e: ClientError) => void;
}

async function expectErrors(t: ProviderSuite<Closable>, cases: ErrorCase[]) {
  for (const c of cases) {
    const messages = [{ role: 'user' as const, content: c.content ?? 'hi' }];
    const anthropic = c.via.startsWith('messages');
    const e = await failed(
      c.via === 'chat'
        ? t.ask(c.model, c.content)
        : c.via === 'chat-stream'
          ? streamChat(t.openai(), { model: c.model, messages })
          : c.via === 'messages'
            ? t.askAnthropic(c.model, { content: c.content })
            : streamMessage(t.anthropic(), { model: c.model, max_tokens: 16, messages }),
    );
    expect(e, `${c.via} ${c.model}`).toBeInstanceOf(anthropic ? Anthropic.APIError : OpenAI.APIError);
    expect(e.status, `${c.via} ${c.model}`).toBe(c.status);
    if (c.type) expect(anthropic ? e.error?.error?.type : e.type).toBe(c.type);
    if (c.says) expect(e.message).toContain(c.says);
    c.check?.(anthropic ? e.error?.error?.message : e.message, e);
  }
}

/** Model ratio 1 and completion ratio 2 for each model, group ratio 1: a text answer costs prompt + 2 x completion. */
export function ratioOneCompletionTwo(models: string[]): Prices {
  return { models: Object.fromEntries(models.map((m) => [m, { ratio: 1, completion: 2 }])), group: 1 };
}

/** The bill of a text answer at `ratioOneCompletionTwo`, priced by hand. */
export const billOneTwo = (usage: { prompt: number; completion: number }, channel?: number): Bill => ({
  prompt: usage.prompt,
  completion: usage.completion,
  quota: usage.prompt + 2 * usage.completion,
  channel,
});
