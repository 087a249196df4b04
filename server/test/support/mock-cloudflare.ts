import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Cloudflare Workers AI's OpenAI-compatible endpoints on 127.0.0.1:
 * `/client/v4/accounts/<account>/ai/v1/chat/completions` and `.../ai/v1/embeddings`, and the account's model
 * search `.../ai/models/search` (paged, `result[].name` and `task.name`). The API token goes as Bearer; a
 * wrong token, or an account the token does not belong to, is answered with Cloudflare's v4 error envelope
 * (`{success:false, errors:[{code, message}]}`). A model Workers AI does not have is a 400 in that envelope.
 */
export interface CloudflareMock {
  url: string;
  requests: Array<{ method: string; path: string; query: string; auth: string; body: any }>;
  close(): Promise<void>;
}

export const CF_ANSWER = {
  text: 'Workers AI says hello.',
  deltas: ['Workers AI ', 'says ', 'hello.'],
  usage: { prompt: 17, completion: 6 },
};
export const CF_EMBED_TOKENS = 5;
export const CF_MODELS = [
  { name: '@cf/meta/llama-3.1-8b-instruct', task: 'Text Generation' },
  { name: '@cf/baai/bge-base-en-v1.5', task: 'Text Embeddings' },
  { name: '@cf/stabilityai/stable-diffusion-xl-base-1.0', task: 'Text-to-Image' },
];
const KNOWN = new Set(CF_MODELS.map((m) => m.name));

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const failure = (res: ServerResponse, status: number, code: number, message: string) =>
  send(res, status, { result: null, success: false, errors: [{ code, message }], messages: [] });

/** `tokens`: API token -> the account id it belongs to. */
export async function startCloudflareMock(tokens: Record<string, string>): Promise<CloudflareMock> {
  const mock: CloudflareMock = { url: '', requests: [], close: async () => {} };
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const [path, query = ''] = (req.url ?? '').split('?');
    const body = parts.length ? JSON.parse(Buffer.concat(parts).toString()) : null;
    const auth = String(req.headers.authorization ?? '');
    mock.requests.push({ method: req.method ?? '', path, query, auth, body });
    const m =
      /^\/client\/v4\/accounts\/([^/]+)\/ai\/(v1\/chat\/completions|v1\/embeddings|models\/search)$/.exec(
        path,
      );
    if (!m) return failure(res, 404, 7003, `Could not route to ${path}`);
    const owner = tokens[auth.replace(/^Bearer /, '')];
    if (!owner) return failure(res, 401, 10000, 'Authentication error');
    if (owner !== m[1]) return failure(res, 403, 10000, 'Authentication error');
    if (m[2] === 'models/search') {
      const q = new URLSearchParams(query);
      const page = Number(q.get('page') ?? 1);
      const per = Number(q.get('per_page') ?? 20);
      const slice = CF_MODELS.slice((page - 1) * per, page * per);
      return send(res, 200, {
        success: true,
        errors: [],
        messages: [],
        result: slice.map((x, i) => ({ id: `id-${i}`, name: x.name, task: { id: `t-${i}`, name: x.task } })),
        result_info: { page, per_page: per, count: slice.length, total_count: CF_MODELS.length },
      });
    }
    if (!KNOWN.has(body?.model)) return failure(res, 400, 5007, `No such model ${body?.model} or task`);
    if (m[2] === 'v1/embeddings') {
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      return send(res, 200, {
        object: 'list',
        data: input.map((t, index) => ({
          object: 'embedding',
          index,
          embedding: [t.length / 10, 0.5, -0.25],
        })),
        model: body.model,
        usage: { prompt_tokens: CF_EMBED_TOKENS, total_tokens: CF_EMBED_TOKENS },
      });
    }
    const usage = {
      prompt_tokens: CF_ANSWER.usage.prompt,
      completion_tokens: CF_ANSWER.usage.completion,
      total_tokens: CF_ANSWER.usage.prompt + CF_ANSWER.usage.completion,
    };
    const id = 'id-1755000000000';
    if (!body.stream)
      return send(res, 200, {
        id,
        object: 'chat.completion',
        created: 1755000000,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: CF_ANSWER.text }, finish_reason: 'stop' },
        ],
        usage,
      });
    const chunk = (delta: object, finish: string | null, extra: object = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1755000000, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const d of CF_ANSWER.deltas) res.write(chunk({ content: d }, null));
    res.write(chunk({}, 'stop'));
    if (body.stream_options?.include_usage)
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1755000000, model: body.model, choices: [], usage })}\n\n`,
      );
    res.end('data: [DONE]\n\n');
  }
  const served = await serveMock(handle);
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
