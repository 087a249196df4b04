import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * Alibaba DashScope's native API on 127.0.0.1: the Bearer key checked on every call; generation in message
 * format, plain or as incremental SSE (`event:result` frames, `event:error` frames; `qwen-arrears` and
 * `qwen-filtered` answer errors), text-embedding (vectors answered out of order, with their `text_index`),
 * text-rerank, the Wanx image task submitted async and polled to its end (a prompt with `forbidden` fails), and
 * the compatible-mode model list.
 */
const TASK_POLLS = ['PENDING', 'RUNNING', 'SUCCEEDED'];

export interface DashScopeCall {
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

function dashScope(goodKey: string) {
  const seen: DashScopeCall[] = [];
  const tasks = new Map<string, { polls: number; n: number; prompt: string }>();
  let taskSeq = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://mock');
    const body = raw ? JSON.parse(raw) : undefined;
    seen.push({ path: url.pathname, method: req.method ?? '', headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${goodKey}`)
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

/** DashScope on a loopback port, taking only `goodKey`; `seen` holds every call it received. */
export async function startDashScopeMock(goodKey: string) {
  const d = dashScope(goodKey);
  const server = await serveMock(d.handle);
  return { ...server, seen: d.seen };
}
