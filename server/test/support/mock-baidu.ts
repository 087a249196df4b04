import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * Baidu Wenxin Workshop (v1) on 127.0.0.1, after its public API reference:
 * - `POST /oauth/2.0/token?grant_type=client_credentials&client_id=<API Key>&client_secret=<Secret Key>` gives
 *   `{access_token, expires_in}` for a known application, else 401 `{error: 'invalid_client'}`;
 * - `POST /rpc/2.0/ai_custom/v1/wenxinworkshop/chat/<endpoint>?access_token=...` answers ERNIE chat, plain or
 *   as `data:` frames with `is_end`, and errors as 200 `{error_code, error_msg}` (110 for an unknown token,
 *   111 for an expired one);
 * - `POST .../embeddings/<endpoint>` answers `{data: [{embedding, index}], usage}`.
 * Messages must alternate user (or function) and assistant and end with a user turn, as Wenxin checks.
 */
export interface BaiduMock {
  url: string;
  /** Token exchanges answered, per API Key. */
  exchanges: Map<string, number>;
  /** Calls received (path, the token they carried and their body). */
  calls: Array<{ path: string; token: string | null; body: any }>;
  /** Answer the next n token exchanges with a server error. */
  failTokens(n: number): void;
  /** Mark a token expired (error 111 from now on). */
  expire(token: string): void;
  /** The last token issued to an API Key. */
  tokenOf(apiKey: string): string | undefined;
  close(): Promise<void>;
}

export const BAIDU_ANSWER = { text: '您好，我是文心一言。', usage: { prompt: 7, completion: 9 } };
export const BAIDU_STREAM = {
  deltas: ['北京今天', '晴，', ' 最高 25 度。'],
  usage: { prompt: 11, completion: 14 },
};
export const BAIDU_CALL = { name: 'get_weather', arguments: '{"city":"北京"}' };
export const BAIDU_EMBED_TOKENS = 6;

/** Error endpoints: the model name decides the error code the answer carries. */
export const BAIDU_ERRORS: Record<string, [number, string]> = {
  'ernie-rate': [18, 'Open api qps request limit reached'],
  'ernie-quota': [17, 'Open api daily request limit reached'],
  'ernie-bad': [336003, 'Invalid Argument: the first message must be from the user'],
};

export async function startBaiduMock(apps: Record<string, string>): Promise<BaiduMock> {
  const exchanges = new Map<string, number>();
  const issued = new Map<string, string>(); // token -> API Key
  const latest = new Map<string, string>();
  const expired = new Set<string>();
  const calls: BaiduMock['calls'] = [];
  let failing = 0;
  let seq = 0;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = await serveMock(async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const raw = await readBody(req);
    if (req.method !== 'POST')
      return json(res, 405, { error_code: 3, error_msg: 'Unsupported openapi method' });

    if (url.pathname === '/oauth/2.0/token') {
      const q = url.searchParams;
      if (failing > 0) {
        failing--;
        return json(res, 500, { error: 'server_error', error_description: 'token service unavailable' });
      }
      if (q.get('grant_type') !== 'client_credentials')
        return json(res, 400, {
          error: 'unsupported_grant_type',
          error_description: 'unsupported grant type',
        });
      const id = q.get('client_id') ?? '';
      if (!(id in apps))
        return json(res, 401, { error: 'invalid_client', error_description: 'unknown client id' });
      if (apps[id] !== q.get('client_secret'))
        return json(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      exchanges.set(id, (exchanges.get(id) ?? 0) + 1);
      const token = `24.${id.length}${++seq}.2592000.mock-token-${seq}`;
      issued.set(token, id);
      latest.set(id, token);
      return json(res, 200, {
        refresh_token: `25.refresh-${seq}`,
        expires_in: 2592000,
        session_key: 'mock-session',
        access_token: token,
        scope: 'public brain_all_scope wenxinworkshop_mgr',
        session_secret: 'mock-secret',
      });
    }

    const m = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings)\/([^/]+)$/.exec(url.pathname);
    const token = url.searchParams.get('access_token');
    calls.push({ path: url.pathname, token, body: safeJson(raw) });
    if (!m) return json(res, 404, { error_code: 3, error_msg: 'Unsupported openapi method' });
    if (!token || !issued.has(token))
      return json(res, 200, { error_code: 110, error_msg: 'Access token invalid or no longer valid' });
    if (expired.has(token)) return json(res, 200, { error_code: 111, error_msg: 'Access token expired' });
    const body = safeJson(raw);
    if (!body || typeof body !== 'object')
      return json(res, 200, { error_code: 336002, error_msg: 'Invalid JSON' });

    if (m[1] === 'embeddings') {
      if (!Array.isArray(body.input) || body.input.some((t: unknown) => typeof t !== 'string'))
        return json(res, 200, { error_code: 336003, error_msg: 'input must be a list of strings' });
      return json(res, 200, {
        id: `as-emb-${seq}`,
        object: 'embedding_list',
        created: Math.floor(Date.now() / 1000),
        data: body.input.map((t: string, index: number) => ({
          object: 'embedding',
          embedding: [t.length / 10, index, 0.5],
          index,
        })),
        usage: { prompt_tokens: BAIDU_EMBED_TOKENS, total_tokens: BAIDU_EMBED_TOKENS },
      });
    }

    const endpoint = decodeURIComponent(m[2]);
    const err = BAIDU_ERRORS[endpoint];
    if (err) return json(res, 200, { error_code: err[0], error_msg: err[1] });
    const refusal = checkMessages(body.messages);
    if (refusal) return json(res, 200, { error_code: 336006, error_msg: refusal });
    const id = `as-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const last = body.messages.at(-1);

    if (Array.isArray(body.functions) && body.functions.length && last.role === 'user') {
      const usage = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };
      return json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        result: '',
        is_truncated: false,
        need_clear_history: false,
        finish_reason: 'function_call',
        function_call: { ...BAIDU_CALL, thoughts: '用户想知道天气，调用 get_weather' },
        usage,
      });
    }
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const { deltas, usage } = BAIDU_STREAM;
      deltas.forEach((result, i) => {
        const end = i === deltas.length - 1;
        const frame = {
          id,
          object: 'chat.completion',
          created,
          sentence_id: i,
          is_end: end,
          is_truncated: false,
          result,
          need_clear_history: false,
          ...(end ? { finish_reason: 'normal' } : {}),
          usage: {
            prompt_tokens: usage.prompt,
            completion_tokens: end ? usage.completion : 0,
            total_tokens: usage.prompt + (end ? usage.completion : 0),
          },
        };
        res.write(`data: ${JSON.stringify(frame)}\n\n`);
      });
      return void res.end();
    }
    // A follow-up after a function result answers with what the function said.
    const text = last.role === 'function' ? `根据查询：${last.content}` : BAIDU_ANSWER.text;
    const { prompt, completion } = BAIDU_ANSWER.usage;
    return json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      result: text,
      is_truncated: false,
      need_clear_history: false,
      finish_reason: 'normal',
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
  });

  return {
    url: server.url,
    exchanges,
    calls,
    failTokens: (n) => {
      failing = n;
    },
    expire: (t) => void expired.add(t),
    tokenOf: (apiKey) => latest.get(apiKey),
    close: server.close,
  };
}

/** Wenxin's rule: an odd number of messages, user (or function) and assistant alternating, a user turn last. */
function checkMessages(messages: unknown): string | null {
  if (!Array.isArray(messages) || messages.length === 0) return 'messages is empty';
  if (messages.length % 2 === 0) return 'the message count must be odd';
  for (const [i, m] of messages.entries()) {
    const userSide = i % 2 === 0;
    if (userSide ? m.role !== 'user' && m.role !== 'function' : m.role !== 'assistant')
      return `message ${i} has role ${m.role}: user and assistant must alternate`;
    if (m.role === 'function' && (!m.name || typeof m.content !== 'string'))
      return 'a function message needs name and content';
    if (m.role === 'assistant' && m.function_call && typeof m.function_call.name !== 'string')
      return 'function_call needs a name';
  }
  return null;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function safeJson(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}
