import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * Zhipu's v3 model API on 127.0.0.1, after its public reference:
 * - every call carries `Authorization: <JWT>` (no Bearer): HS256 signed with the key's secret, header
 *   `sign_type: SIGN`, claims `api_key` (the key's id), `exp` and `timestamp` in milliseconds; a bad token is
 *   401 `{code: 1002}`, an expired one `{code: 1003}`;
 * - `POST /api/paas/v3/model-api/<model>/invoke` answers `{code: 200, msg, success, data: {task_id, choices,
 *   usage}}` (the content a JSON string literal, as the v3 API gives it), and errors as 200 `{code, msg}`;
 * - `/sse-invoke` answers `event: add` frames with the raw text in `data:` lines, then `event: finish` with a
 *   `meta:` line of JSON carrying the usage;
 * - `text_embedding/invoke` takes one `prompt` string and answers `data: {embedding, usage}`.
 */
export interface ZhipuMock {
  url: string;
  /** The Authorization values received, in order. */
  tokens: string[];
  /** Bodies received, with their path. */
  calls: Array<{ path: string; body: any }>;
  close(): Promise<void>;
}

export const ZHIPU_ANSWER = {
  text: '你好！我是智谱清言，\n很高兴见到你。',
  usage: { prompt: 8, completion: 13 },
};
/** Deltas with a leading space and a line break inside, which must reach the client byte for byte. */
export const ZHIPU_STREAM = {
  deltas: ['Hello', ' world', ',\nline two', '\n\n', ' end.'],
  usage: { prompt: 10, completion: 17 },
};
export const ZHIPU_EMBED_TOKENS = 4;

export const ZHIPU_ERRORS: Record<string, [number, string]> = {
  'chatglm-blocked': [
    1301,
    '系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语',
  ],
  'chatglm-arrears': [1113, '您的账户已欠费，请充值后重试。'],
  'chatglm-busy': [1302, '您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。'],
};

export async function startZhipuMock(keys: Record<string, string>): Promise<ZhipuMock> {
  const tokens: string[] = [];
  const calls: ZhipuMock['calls'] = [];
  let seq = 0;
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: number, msg: string) =>
    json(res, status, { code, msg, success: false });

  const server = await serveMock(async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const auth = String(req.headers.authorization ?? '');
    tokens.push(auth);
    const refused = verifyJwt(auth, keys);
    if (refused) return fail(res, 401, refused.code, refused.msg);
    const m = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/.exec(req.url ?? '');
    const body = safeJson(raw);
    calls.push({ path: req.url ?? '', body });
    if (req.method !== 'POST' || !m) return fail(res, 404, 1222, 'API 不存在');
    const model = decodeURIComponent(m[1]);
    const taskId = `8311344279163${String(++seq).padStart(6, '0')}`;

    if (model === 'text_embedding') {
      if (typeof body?.prompt !== 'string') return fail(res, 200, 1214, 'prompt 参数非法');
      return json(res, 200, {
        code: 200,
        msg: '操作成功',
        success: true,
        data: {
          embedding: [body.prompt.length / 10, 0.25, -0.5],
          request_id: taskId,
          task_id: taskId,
          task_status: 'SUCCESS',
          usage: {
            prompt_tokens: ZHIPU_EMBED_TOKENS,
            completion_tokens: 0,
            total_tokens: ZHIPU_EMBED_TOKENS,
          },
        },
      });
    }
    const err = ZHIPU_ERRORS[model];
    if (err) return fail(res, 200, err[0], err[1]);
    const prompt = body?.prompt;
    if (
      !Array.isArray(prompt) ||
      prompt.length === 0 ||
      prompt.some(
        (p: any) => (p.role !== 'user' && p.role !== 'assistant') || typeof p.content !== 'string',
      ) ||
      prompt.at(-1).role !== 'user'
    )
      return fail(res, 200, 1214, 'prompt 参数非法');

    if (m[2] === 'sse-invoke') {
      res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
      const { deltas, usage } = ZHIPU_STREAM;
      // A delta goes as one `data:` line per line of text (SSE's rule), the space after the colon being the
      // separator.
      const data = (text: string) =>
        text
          .split('\n')
          .map((l) => `data: ${l}\n`)
          .join('');
      for (const d of deltas.slice(0, -1)) res.write(`event: add\nid: ${taskId}\n${data(d)}\n`);
      const meta = {
        task_status: 'SUCCESS',
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
        },
        task_id: taskId,
        request_id: taskId,
      };
      res.write(
        `event: finish\nid: ${taskId}\n${data(deltas.at(-1) ?? '')}meta: ${JSON.stringify(meta)}\n\n`,
      );
      return void res.end();
    }
    const { prompt: p, completion } = ZHIPU_ANSWER.usage;
    return json(res, 200, {
      code: 200,
      msg: '操作成功',
      success: true,
      data: {
        request_id: taskId,
        task_id: taskId,
        task_status: 'SUCCESS',
        choices: [{ role: 'assistant', content: JSON.stringify(ZHIPU_ANSWER.text) }],
        usage: { prompt_tokens: p, completion_tokens: completion, total_tokens: p + completion },
      },
    });
  });

  return { url: server.url, tokens, calls, close: server.close };
}

/** Why a JWT would be refused (null when it is good): signature, sign_type, api_key, exp and timestamp. */
function verifyJwt(token: string, keys: Record<string, string>): { code: number; msg: string } | null {
  const bad = { code: 1002, msg: 'Authorization Token非法，请确认Authorization Token正确传递。' };
  if (!token || token.startsWith('Bearer ')) return bad;
  const parts = token.split('.');
  if (parts.length !== 3) return bad;
  const header = decodePart(parts[0]);
  const payload = decodePart(parts[1]);
  if (header?.alg !== 'HS256' || header?.sign_type !== 'SIGN') return bad;
  const secret = keys[payload?.api_key];
  if (!secret) return bad;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return bad;
  const now = Date.now();
  if (typeof payload.exp !== 'number' || payload.exp <= now)
    return { code: 1003, msg: 'Authorization Token已过期' };
  // Milliseconds, near now: not from the future, and not older than a day.
  if (
    typeof payload.timestamp !== 'number' ||
    payload.timestamp > now + 5000 ||
    now - payload.timestamp > 86_400_000
  )
    return bad;
  return null;
}

function decodePart(s: string): any {
  try {
    return JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
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
