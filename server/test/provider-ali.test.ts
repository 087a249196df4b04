import type { IncomingMessage, ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { serveMock } from './support/mock-server.ts';
import { flushLedger } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * Alibaba Qwen (channel type 17) through DashScope's native API, against a mock that speaks it: Bearer key
 * check, generation in message format with incremental SSE (event:result frames, event:error frames),
 * text-embedding, text-rerank, and the Wanx image task that is submitted async and polled to its end.
 */
const GOOD_KEY = 'sk-ali-good-0123456789';
const BAD_KEY = 'sk-ali-revoked-987654321';
const TASK_POLLS = ['PENDING', 'RUNNING', 'SUCCEEDED'];

interface Seen {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: any;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** DashScope's SSE frame: an id, the event name, the status comment line, the data. */
const frame = (id: number, event: 'result' | 'error', status: number, data: unknown) =>
  `id:${id}\nevent:${event}\n:HTTP_STATUS/${status}\ndata:${JSON.stringify(data)}\n\n`;

const aliFail = (res: ServerResponse, status: number, code: string, message: string) =>
  json(res, status, { code, message, request_id: 'req-err-1' });

function startDashScope() {
  const seen: Seen[] = [];
  const tasks = new Map<string, { polls: number; n: number; prompt: string }>();
  let taskSeq = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://mock');
    const body = raw ? JSON.parse(raw) : undefined;
    seen.push({ path: url.pathname, method: req.method ?? '', headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${GOOD_KEY}`)
      return aliFail(res, 401, 'InvalidApiKey', 'Invalid API-key provided.');

    if (req.method === 'GET' && url.pathname === '/compatible-mode/v1/models')
      return json(res, 200, { object: 'list', data: [{ id: 'qwen-turbo' }, { id: 'qwen-plus' }] });

    if (req.method === 'GET' && url.pathname.startsWith('/api/v1/tasks/')) {
      const id = decodeURIComponent(url.pathname.slice('/api/v1/tasks/'.length));
      const task = tasks.get(id);
      if (!task) return aliFail(res, 404, 'InvalidParameter', 'task not found');
      const status = TASK_POLLS[Math.min(task.polls++, TASK_POLLS.length - 1)];
      if (status !== 'SUCCEEDED')
        return json(res, 200, { request_id: 'req-poll', output: { task_id: id, task_status: status } });
      if (task.prompt.includes('forbidden'))
        return json(res, 200, {
          request_id: 'req-poll',
          output: {
            task_id: id,
            task_status: 'FAILED',
            code: 'DataInspectionFailed',
            message: 'Input data may contain inappropriate content.',
          },
        });
      return json(res, 200, {
        request_id: 'req-poll',
        output: {
          task_id: id,
          task_status: 'SUCCEEDED',
          results: Array.from({ length: task.n }, (_, i) => ({
            url: `https://dashscope-result.example/${id}/${i}.png`,
            actual_prompt: `${task.prompt}, detailed`,
          })),
          task_metrics: { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 },
        },
        usage: { image_count: task.n },
      });
    }

    if (req.method !== 'POST') return aliFail(res, 404, 'NotFound', 'no such endpoint');
    switch (url.pathname) {
      case '/api/v1/services/aigc/text-generation/generation':
        return generation(req, res, body);
      case '/api/v1/services/embeddings/text-embedding/text-embedding': {
        const texts: string[] = body?.input?.texts ?? [];
        if (!texts.length) return aliFail(res, 400, 'InvalidParameter', 'input.texts is required');
        // Answered out of order: text_index says which text each vector belongs to.
        const embeddings = texts.map((t, i) => ({ text_index: i, embedding: [t.length, i, 0.5] })).reverse();
        return json(res, 200, { output: { embeddings }, usage: { total_tokens: 8 }, request_id: 'req-emb' });
      }
      case '/api/v1/services/rerank/text-rerank/text-rerank': {
        const docs: string[] = body?.input?.documents ?? [];
        return json(res, 200, {
          output: {
            results: docs
              .map((text, index) => ({
                index,
                relevance_score: text.includes('panda') ? 0.9 : 0.1,
                document: { text },
              }))
              .sort((a, b) => b.relevance_score - a.relevance_score)
              .slice(0, body?.parameters?.top_n ?? docs.length),
          },
          usage: { total_tokens: 24 },
          request_id: 'req-rerank',
        });
      }
      case '/api/v1/services/aigc/text2image/image-synthesis': {
        if (req.headers['x-dashscope-async'] !== 'enable')
          return aliFail(res, 403, 'AccessDenied', 'current user api does not support synchronous calls');
        const id = `task-${++taskSeq}`;
        tasks.set(id, { polls: 0, n: body?.parameters?.n ?? 1, prompt: body?.input?.prompt ?? '' });
        return json(res, 200, { output: { task_id: id, task_status: 'PENDING' }, request_id: 'req-img' });
      }
    }
    return aliFail(res, 404, 'NotFound', 'no such endpoint');
  };

  async function generation(req: IncomingMessage, res: ServerResponse, body: any) {
    const model: string = body?.model ?? '';
    const params = body?.parameters ?? {};
    if (!Array.isArray(body?.input?.messages) || params.result_format !== 'message')
      return aliFail(res, 400, 'InvalidParameter', 'input.messages and result_format message are expected');
    if (model === 'qwen-arrears')
      return aliFail(
        res,
        400,
        'Arrearage',
        'Access denied, please make sure your account is in good standing.',
      );
    const stream = req.headers['x-dashscope-sse'] === 'enable';
    const usage = (out: number) => ({ input_tokens: 12, output_tokens: out, total_tokens: 12 + out });
    if (!stream) {
      return json(res, 200, {
        output: {
          choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: 'Hello from Qwen' } }],
        },
        usage: usage(4),
        request_id: 'req-plain',
      });
    }
    if (params.incremental_output !== true)
      return aliFail(res, 400, 'InvalidParameter', 'incremental_output is expected with SSE');
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
    if (model === 'qwen-filtered') {
      res.end(
        frame(1, 'error', 400, {
          code: 'DataInspectionFailed',
          message: 'Input data may contain inappropriate content.',
          request_id: 'req-filtered',
        }),
      );
      return;
    }
    const choice = (message: unknown, finish: string) => ({
      output: { choices: [{ message, finish_reason: finish }] },
    });
    const frames: unknown[] = Array.isArray(params.tools)
      ? [
          {
            ...choice(
              {
                role: 'assistant',
                content: '',
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_qwen_1',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '{"city":' },
                  },
                ],
              },
              'null',
            ),
            usage: usage(5),
          },
          {
            ...choice(
              {
                role: 'assistant',
                content: '',
                tool_calls: [{ index: 0, id: '', type: 'function', function: { arguments: '"Hangzhou"}' } }],
              },
              'tool_calls',
            ),
            usage: usage(9),
          },
        ]
      : [
          { ...choice({ role: 'assistant', content: 'Hello' }, 'null'), usage: usage(1) },
          { ...choice({ role: 'assistant', content: ' from' }, 'null'), usage: usage(2) },
          { ...choice({ role: 'assistant', content: ' Qwen' }, 'stop'), usage: usage(3) },
        ];
    frames.forEach((f, i) => {
      res.write(frame(i + 1, 'result', 200, { ...(f as object), request_id: 'req-stream' }));
    });
    res.end();
  }

  return { seen, tasks, handle };
}

describe('Alibaba Qwen (DashScope) channel', () => {
  let server: TestServer;
  let mock: { url: string; close: () => Promise<void> };
  let dash: ReturnType<typeof startDashScope>;
  let admin: ConsoleClient;
  let userId: number;
  let token: { id: number; key: string };
  let channelId: number;
  const MODELS = [
    'qwen-plus',
    'qwen-plus-internet',
    'qwen-arrears',
    'qwen-filtered',
    'text-embedding-v3',
    'gte-rerank',
    'wanx2.1-t2i-turbo',
  ];

  const openai = () => new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: `sk-${token.key}`, baseURL: server.url, maxRetries: 0 });
  const lastSeen = (path: string) => [...dash.seen].reverse().find((s) => s.path === path);

  async function lastLogId(): Promise<number> {
    await flushLedger(server.ctx);
    const row = await server.ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    return Number(row?.id ?? 0);
  }

  /** The usage rows written since `after`, and how much the user's and the token's used quota grew. */
  async function charged<T>(run: () => Promise<T>) {
    const before = await lastLogId();
    const used = await usedQuota();
    const result = await run();
    await flushLedger(server.ctx);
    const rows = await server.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('id', '>', before)
      .where('type', '=', 2)
      .execute();
    const now = await usedQuota();
    return { result, rows, userDelta: now.user - used.user, tokenDelta: now.token - used.token };
  }

  async function usedQuota() {
    await flushLedger(server.ctx);
    const u = await server.ctx.db.db
      .selectFrom('users')
      .select('used_quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const t = await server.ctx.db.db
      .selectFrom('tokens')
      .select('used_quota')
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    return { user: Number(u.used_quota), token: Number(t.used_quota) };
  }

  /** ModelRatio 1.5, CompletionRatio 2, group ratio 1. */
  const textQuota = (prompt: number, completion: number) => Math.round((prompt + 2 * completion) * 1.5);

  beforeAll(async () => {
    dash = startDashScope();
    mock = await serveMock(dash.handle);
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
    const ratios = (n: number) =>
      JSON.stringify(Object.fromEntries([...MODELS, 'qwen-revoked'].map((m) => [m, n])));
    await server.ctx.options.set('ModelRatio', ratios(1.5));
    await server.ctx.options.set('CompletionRatio', ratios(2));
    await server.ctx.options.set('ModelPrice', JSON.stringify({ 'wanx2.1-t2i-turbo': 0.02 }));
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const user = await loginAs(server, { username: 'qwen-user', quota: 50_000_000 });
    userId = user.userId;
    const ch = await admin.post('/api/channel/', {
      type: 17,
      name: 'dashscope',
      key: GOOD_KEY,
      base_url: mock.url,
      models: MODELS,
      group: 'default',
      auto_ban: 0,
      test_model: 'qwen-plus',
      setting: JSON.stringify({ poll_interval_ms: 50 }),
    });
    expect(ch.success, ch.message).toBe(true);
    channelId = ch.data.ids[0];
    const revoked = await admin.post('/api/channel/', {
      type: 17,
      name: 'dashscope-revoked',
      key: BAD_KEY,
      base_url: mock.url,
      models: ['qwen-revoked'],
      group: 'default',
      auto_ban: 0,
    });
    expect(revoked.success, revoked.message).toBe(true);
    const tk = await user.post('/api/token/', { name: 'app', remain_quota: 5_000_000 });
    expect(tk.success, tk.message).toBe(true);
    token = tk.data[0];
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('refuses a key that is not one DashScope API key when the channel is saved', async () => {
    const r = await admin.post('/api/channel/', {
      type: 17,
      name: 'bad-key',
      key: 'sk-ali one|two',
      base_url: mock.url,
      models: ['qwen-plus'],
    });
    expect(r.success).toBe(false);
    expect(r.message).toMatch(/single API key \(sk-\.\.\.\)/);
  });

  it('relays a plain chat with the Bearer key, in message format, and bills its usage', async () => {
    const { result, rows, userDelta, tokenDelta } = await charged(() =>
      openai().chat.completions.create({
        model: 'qwen-plus',
        temperature: 0.5,
        max_tokens: 64,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
      }),
    );
    expect(result.choices[0].message.content).toBe('Hello from Qwen');
    expect(result.choices[0].finish_reason).toBe('stop');
    expect(result.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 });
    const sent = lastSeen('/api/v1/services/aigc/text-generation/generation');
    expect(sent?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
    expect(sent?.headers['x-dashscope-sse']).toBeUndefined();
    expect(sent?.body).toEqual({
      model: 'qwen-plus',
      input: {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
      },
      parameters: { result_format: 'message', temperature: 0.5, max_tokens: 64 },
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ prompt_tokens: 12, completion_tokens: 4, quota: textQuota(12, 4) });
    expect(userDelta).toBe(textQuota(12, 4));
    expect(tokenDelta).toBe(textQuota(12, 4));
  });

  it('relays a streamed chat from incremental SSE frames, with usage, and bills it', async () => {
    const { result, rows, userDelta } = await charged(async () => {
      const stream = await openai().chat.completions.create({
        model: 'qwen-plus',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Say hello' }],
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
    expect(result.text).toBe('Hello from Qwen');
    expect(result.finish).toBe('stop');
    expect(result.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 3 });
    const sent = lastSeen('/api/v1/services/aigc/text-generation/generation');
    expect(sent?.headers['x-dashscope-sse']).toBe('enable');
    expect(sent?.headers.accept).toBe('text/event-stream');
    expect(sent?.body.parameters).toMatchObject({ result_format: 'message', incremental_output: true });
    expect(rows[0]).toMatchObject({ prompt_tokens: 12, completion_tokens: 3, quota: textQuota(12, 3) });
    expect(userDelta).toBe(textQuota(12, 3));
  });

  it('streams tool calls with their arguments in fragments, as OpenAI tool calls', async () => {
    const stream = await openai().chat.completions.create({
      model: 'qwen-plus',
      stream: true,
      tool_choice: 'auto',
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      messages: [{ role: 'user', content: 'Weather in Hangzhou?' }],
    });
    const calls: Array<{ id?: string; name?: string; args: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const tc of chunk.choices[0]?.delta?.tool_calls ?? []) {
        calls[tc.index] ??= { args: '' };
        if (tc.id) calls[tc.index].id = tc.id;
        if (tc.function?.name) calls[tc.index].name = tc.function.name;
        calls[tc.index].args += tc.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls).toEqual([{ id: 'call_qwen_1', name: 'get_weather', args: '{"city":"Hangzhou"}' }]);
    expect(finish).toBe('tool_calls');
    const params = lastSeen('/api/v1/services/aigc/text-generation/generation')?.body.parameters;
    expect(params.tools[0]).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(params.tool_choice).toBe('auto');
  });

  it('answers an Anthropic client on /v1/messages, plain and streamed', async () => {
    const msg = await anthropic().messages.create({
      model: 'qwen-plus',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'Hello from Qwen' }]);
    expect(msg.usage).toMatchObject({ input_tokens: 12, output_tokens: 4 });
    expect(msg.stop_reason).toBe('end_turn');

    const final = await anthropic()
      .messages.stream({
        model: 'qwen-plus',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Say hello' }],
      })
      .finalMessage();
    expect(final.content).toEqual([{ type: 'text', text: 'Hello from Qwen' }]);
    expect(final.usage.output_tokens).toBe(3);
  });

  it('turns web search on for a model named <model>-internet', async () => {
    const r = await openai().chat.completions.create({
      model: 'qwen-plus-internet',
      messages: [{ role: 'user', content: 'News?' }],
    });
    expect(r.choices[0].message.content).toBe('Hello from Qwen');
    const sent = lastSeen('/api/v1/services/aigc/text-generation/generation');
    expect(sent?.body.model).toBe('qwen-plus');
    expect(sent?.body.parameters.enable_search).toBe(true);
  });

  it('relays embeddings in DashScope shape, vectors in input order, billed on its token count', async () => {
    const { result, rows, userDelta } = await charged(() =>
      // Floats asked for explicitly: the gateway answers converted embeddings as floats whatever the client asks.
      openai().embeddings.create({
        model: 'text-embedding-v3',
        input: ['one', 'three'],
        encoding_format: 'float',
      }),
    );
    expect(result.data.map((d) => d.embedding)).toEqual([
      [3, 0, 0.5],
      [5, 1, 0.5],
    ]);
    expect(result.usage.prompt_tokens).toBe(8);
    expect(lastSeen('/api/v1/services/embeddings/text-embedding/text-embedding')?.body).toEqual({
      model: 'text-embedding-v3',
      input: { texts: ['one', 'three'] },
      parameters: { text_type: 'query' },
    });
    expect(rows[0]).toMatchObject({ prompt_tokens: 8, quota: textQuota(8, 0) });
    expect(userDelta).toBe(textQuota(8, 0));
  });

  it('relays rerank to text-rerank and answers in the rerank shape', async () => {
    const { result, rows } = await charged(async () => {
      const res = await fetch(`${server.url}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gte-rerank',
          query: 'What eats bamboo?',
          documents: ['Cats eat fish.', 'The giant panda eats bamboo.'],
          top_n: 1,
        }),
      });
      return { status: res.status, body: (await res.json()) as any };
    });
    expect(result.status).toBe(200);
    expect(result.body.results).toEqual([
      { index: 1, relevance_score: 0.9, document: { text: 'The giant panda eats bamboo.' } },
    ]);
    expect(lastSeen('/api/v1/services/rerank/text-rerank/text-rerank')?.body).toEqual({
      model: 'gte-rerank',
      input: { query: 'What eats bamboo?', documents: ['Cats eat fish.', 'The giant panda eats bamboo.'] },
      parameters: { top_n: 1 },
    });
    expect(rows[0]).toMatchObject({ prompt_tokens: 24, quota: textQuota(24, 0) });
  });

  it('generates Wanx images through the async task, polled to its end, billed per image', async () => {
    const polledBefore = dash.seen.filter((s) => s.path.startsWith('/api/v1/tasks/')).length;
    const { result, rows, userDelta } = await charged(() =>
      openai().images.generate({
        model: 'wanx2.1-t2i-turbo',
        prompt: 'a red panda',
        n: 2,
        size: '1024x1024',
      }),
    );
    expect(result.data?.map((d) => d.url)).toEqual([
      'https://dashscope-result.example/task-1/0.png',
      'https://dashscope-result.example/task-1/1.png',
    ]);
    expect(result.data?.[0].revised_prompt).toBe('a red panda, detailed');
    expect(typeof result.created).toBe('number');
    const submit = lastSeen('/api/v1/services/aigc/text2image/image-synthesis');
    expect(submit?.headers['x-dashscope-async']).toBe('enable');
    expect(submit?.body).toEqual({
      model: 'wanx2.1-t2i-turbo',
      input: { prompt: 'a red panda' },
      parameters: { n: 2, size: '1024*1024' },
    });
    const polls = dash.seen.filter((s) => s.path.startsWith('/api/v1/tasks/')).slice(polledBefore);
    expect(polls.map((p) => p.method)).toEqual(['GET', 'GET', 'GET']);
    expect(polls.every((p) => p.headers.authorization === `Bearer ${GOOD_KEY}`)).toBe(true);
    // ModelPrice 0.02 per 1024x1024 image x 2 images x QuotaPerUnit x group ratio 1.
    const expected = Math.round(0.02 * 2 * server.ctx.options.float('QuotaPerUnit'));
    expect(rows[0].quota).toBe(expected);
    expect(userDelta).toBe(expected);
  });

  it('maps a failed image task into an OpenAI error, and bills nothing', async () => {
    const used = await usedQuota();
    const err = await openai()
      .images.generate({ model: 'wanx2.1-t2i-turbo', prompt: 'something forbidden', n: 1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(400);
    expect(err.error.code).toBe('DataInspectionFailed');
    expect(err.error.message).toContain('inappropriate content');
    expect((await usedQuota()).user).toBe(used.user);
  });

  it("maps DashScope's out-of-balance error into OpenAI's and Anthropic's protocols, without the key", async () => {
    const used = await usedQuota();
    const err = await openai()
      .chat.completions.create({ model: 'qwen-arrears', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.status).toBe(429);
    expect(err.error).toMatchObject({ type: 'insufficient_quota', code: 'Arrearage' });
    expect(err.error.message).toContain('good standing');
    expect(JSON.stringify(err.error)).not.toContain(GOOD_KEY);

    const aerr = await anthropic()
      .messages.create({ model: 'qwen-arrears', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(aerr).toBeInstanceOf(Anthropic.APIError);
    expect(aerr.status).toBe(429);
    expect(aerr.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
    expect(JSON.stringify(aerr.error)).not.toContain(GOOD_KEY);
    expect((await usedQuota()).user).toBe(used.user);
  });

  it('maps an error frame at the start of a stream, and a refused key, without the key', async () => {
    const filtered = await openai()
      .chat.completions.create({
        model: 'qwen-filtered',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e) => e);
    expect(filtered).toBeInstanceOf(OpenAI.APIError);
    expect(filtered.status).toBe(400);
    expect(filtered.error.code).toBe('DataInspectionFailed');

    const revoked = await anthropic()
      .messages.create({ model: 'qwen-revoked', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e) => e);
    expect(revoked).toBeInstanceOf(Anthropic.APIError);
    expect(revoked.status).toBe(503);
    expect(revoked.error.error.message).toContain('refused the credentials of the channel');
    expect(JSON.stringify(revoked.error)).not.toContain(BAD_KEY);
  });

  it('passes the channel test and lists the models of the account', async () => {
    const test = await admin.get(`/api/channel/test/${channelId}`);
    expect(test.success, test.message).toBe(true);
    expect(lastSeen('/api/v1/services/aigc/text-generation/generation')?.body.model).toBe('qwen-plus');

    const models = await admin.get(`/api/channel/fetch_models/${channelId}`);
    expect(models.success, models.message).toBe(true);
    expect(models.data).toEqual(['qwen-plus', 'qwen-turbo']);
  });
});
