import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A mock of iFlytek Spark's WebSocket chat API on 127.0.0.1, checking what the real one checks before it
 * upgrades: the `authorization` query (base64 of `api_key=..., algorithm="hmac-sha256", headers="host date
 * request-line", signature=...`) whose HMAC-SHA256 over `host: <host>\ndate: <date>\nGET <path> HTTP/1.1` it
 * recomputes with the application's APISecret, the `host` query equal to the Host header, and a date within
 * five minutes of its clock; anything else is refused with 401 and iFlytek's `{"message": ...}`. After the
 * upgrade it reads one request and checks `header.app_id` (the application of the signing key) and
 * `parameter.chat.domain` (the domain of the path's version), then answers in frames: `status` 0, 1..., 2
 * with usage on the last. A last user text containing `trigger:filter` is answered with error frame 10013,
 * `trigger:limit` with 11202, `trigger:slow` with one frame every 50 ms; a request with functions gets a
 * function_call.
 */
export interface SparkApp {
  appId: string;
  apiSecret: string;
}

export interface SparkCall {
  path: string;
  appId: string;
  domain: string;
  body: any;
}

export interface SparkMock {
  url: string;
  calls: SparkCall[];
  /** Upgrades refused, with the reason. */
  refusals: string[];
  /** Sockets the gateway closed before the answer's last frame. */
  abandoned: number;
  close(): Promise<void>;
}

export const SPARK_ANSWER = {
  deltas: ['你好！', '我是讯飞星火', '认知大模型。'],
  usage: { question: 4, prompt: 12, completion: 9 },
};
export const SPARK_CALL = { name: 'get_weather', arguments: '{"city":"合肥"}' };

/** Each version's path and the domain the real API wants with it. */
const DOMAIN_OF: Record<string, string> = {
  '/v1.1/chat': 'lite',
  '/v3.1/chat': 'generalv3',
  '/v3.5/chat': 'generalv3.5',
  '/v4.0/chat': '4.0Ultra',
  '/chat/max-32k': 'max-32k',
  '/chat/pro-128k': 'pro-128k',
};

const SKEW_MS = 5 * 60 * 1000;

/** Why the handshake is refused, or null when the URL is signed as iFlytek wants. */
function refusal(req: IncomingMessage, apps: Record<string, SparkApp>): string | null {
  const url = new URL(req.url ?? '/', 'http://mock');
  const q = url.searchParams;
  const authorization = q.get('authorization');
  const date = q.get('date');
  const host = q.get('host');
  if (!authorization || !date || !host) return 'authorization, date and host are required';
  if (host !== req.headers.host) return 'host does not match';
  const at = Date.parse(date);
  if (!Number.isFinite(at) || Math.abs(Date.now() - at) > SKEW_MS) return 'date is not within 5 minutes';
  const fields = Object.fromEntries(
    [
      ...Buffer.from(authorization, 'base64')
        .toString()
        .matchAll(/(\w+)="([^"]*)"/g),
    ].map((m) => [m[1], m[2]]),
  );
  if (fields.algorithm !== 'hmac-sha256') return 'algorithm must be hmac-sha256';
  if (fields.headers !== 'host date request-line') return 'headers must be host date request-line';
  const app = apps[fields.api_key ?? ''];
  if (!app) return 'unknown api_key';
  const expected = createHmac('sha256', app.apiSecret)
    .update(`host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`)
    .digest();
  const given = Buffer.from(fields.signature ?? '', 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'HMAC signature cannot be verified';
  return null;
}

const frame = (
  sid: string,
  code: number,
  message: string,
  status: number,
  choices?: unknown,
  usage?: unknown,
) =>
  JSON.stringify({
    header: { code, message, sid, status },
    ...(choices ? { payload: { choices, ...(usage ? { usage } : {}) } } : {}),
  });

/** `apps` by APIKey. */
export async function startSparkMock(apps: Record<string, SparkApp>): Promise<SparkMock> {
  const sockets = new Set<Socket>();
  const mock: SparkMock = { url: '', calls: [], refusals: [], abandoned: 0, close: async () => {} };
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: 'websocket only' }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('upgrade', (req, socket, head) => {
    const why = refusal(req, apps);
    const path = new URL(req.url ?? '/', 'http://mock').pathname;
    if (why || !DOMAIN_OF[path]) {
      mock.refusals.push(why ?? `no such path ${path}`);
      const body = JSON.stringify({ message: why ?? 'Not Found' });
      socket.end(
        `HTTP/1.1 ${why ? '401 Unauthorized' : '404 Not Found'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const q = new URL(req.url ?? '/', 'http://mock').searchParams;
    const auth = Buffer.from(q.get('authorization') ?? '', 'base64').toString();
    const apiKey = /api_key="([^"]*)"/.exec(auth)?.[1] ?? '';
    wss.handleUpgrade(req, socket, head, (ws) => converse(ws, path, apps[apiKey]));
  });

  function converse(ws: WebSocket, path: string, app: SparkApp) {
    const sid = `cht000${Math.floor(Math.random() * 1e8)}@dx`;
    let finished = false;
    ws.on('close', () => {
      if (!finished) mock.abandoned++;
    });
    ws.once('message', async (data) => {
      const body = JSON.parse(data.toString());
      const domain = body?.parameter?.chat?.domain;
      mock.calls.push({ path, appId: body?.header?.app_id, domain, body });
      const fail = (code: number, message: string) => {
        finished = true;
        ws.send(frame(sid, code, message, 2));
        ws.close();
      };
      if (body?.header?.app_id !== app.appId) return fail(11200, 'AppIdNoAuthError:(11200)auth no license');
      if (domain !== DOMAIN_OF[path]) return fail(10005, `domain ${domain} does not match ${path}`);
      const text = body?.payload?.message?.text;
      if (!Array.isArray(text) || !text.length) return fail(10004, 'payload.message.text is required');
      for (const m of text)
        if (!['system', 'user', 'assistant'].includes(m.role) || typeof m.content !== 'string')
          return fail(10004, `invalid message role ${m.role}`);
      const last = String(text.at(-1)?.content ?? '');
      if (last.includes('trigger:filter')) return fail(10013, 'input content audit failed, please adjust');
      if (last.includes('trigger:limit')) return fail(11202, 'AppIdQpsOverFlowError:(11202)qps over flow');
      const usage = {
        text: {
          question_tokens: SPARK_ANSWER.usage.question,
          prompt_tokens: SPARK_ANSWER.usage.prompt,
          completion_tokens: SPARK_ANSWER.usage.completion,
          total_tokens: SPARK_ANSWER.usage.prompt + SPARK_ANSWER.usage.completion,
        },
      };
      const item = (content: string, extra: object = {}) => ({
        content,
        role: 'assistant',
        index: 0,
        ...extra,
      });
      if (body?.payload?.functions?.text?.length) {
        finished = true;
        ws.send(
          frame(
            sid,
            0,
            'Success',
            2,
            { status: 2, seq: 0, text: [item('', { content_type: 'text', function_call: SPARK_CALL })] },
            usage,
          ),
        );
        return ws.close();
      }
      const slow = last.includes('trigger:slow');
      const deltas = slow ? Array.from({ length: 100 }, (_, i) => `${i} `) : SPARK_ANSWER.deltas;
      for (const [i, d] of deltas.entries()) {
        if (ws.readyState !== ws.OPEN) return;
        const status = i === deltas.length - 1 ? 2 : i === 0 ? 0 : 1;
        if (status === 2) finished = true;
        ws.send(
          frame(
            sid,
            0,
            'Success',
            status,
            { status, seq: i, text: [item(d)] },
            status === 2 ? usage : undefined,
          ),
        );
        if (slow) await new Promise((r) => setTimeout(r, 50));
      }
      ws.close();
    });
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  mock.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      for (const c of wss.clients) c.terminate();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return mock;
}
