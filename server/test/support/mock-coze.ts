import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Coze's Chat v3 (`POST /v3/chat`) on 127.0.0.1, after Coze's API reference and coze-js: a personal
 * access token as Bearer, the body checked (bot_id, user_id, additional_messages with their content types),
 * and the streamed chat as named SSE events (`event:conversation.message.delta` ... `event:done`). Like Coze
 * it answers failures as JSON `{code, msg}` with HTTP 200 (an unknown token: code 4100), and a stream=false
 * chat only starts it (`status: in_progress`, to be polled).
 * Bots: BOT_ID answers text; REASONING_BOT streams reasoning_content first; FAILING_BOT's chat fails.
 */
export const COZE_KEY = 'pat_Example0123456789abcdefGHIJKLmnop';
export const BOT_ID = '7379462189365198898';
export const REASONING_BOT = '7379462189365190001';
export const FAILING_BOT = '7379462189365190002';
export const ANSWER = ['Coze', ' bot', ' here.'];
export const REASONING = ['Let me', ' think.'];
export const USAGE = { token_count: 46, output_count: 6, input_count: 40 };

export interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const fault = (res: ServerResponse, code: number, msg: string) =>
  json(res, { code, msg, detail: { logid: '20240619103012ABCDEF' } });

function invalid(b: any): string | null {
  if (!b || typeof b !== 'object') return 'the body must be a JSON object';
  if (typeof b.bot_id !== 'string' || !b.bot_id) return 'bot_id is required';
  if (typeof b.user_id !== 'string' || !b.user_id) return 'user_id is required';
  if (!Array.isArray(b.additional_messages)) return 'additional_messages must be a list';
  for (const m of b.additional_messages) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return 'role must be user or assistant';
    if (m.type !== undefined && !['question', 'answer'].includes(m.type)) return 'type is invalid';
    if (typeof m.content !== 'string') return 'content must be a string';
    if (m.content_type === 'object_string') {
      let items: any;
      try {
        items = JSON.parse(m.content);
      } catch {
        return 'object_string content must be a JSON list';
      }
      if (!Array.isArray(items) || !items.every((i) => i?.type === 'text' || typeof i?.file_url === 'string'))
        return 'object_string items are invalid';
    } else if (m.content_type !== 'text') return 'content_type is invalid';
  }
  return null;
}

export async function startCozeMock() {
  const requests: Seen[] = [];
  const served = await serveMock(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw ? JSON.parse(raw) : undefined;
    const path = (req.url ?? '').split('?')[0];
    requests.push({ path, headers: req.headers, body });
    if (req.headers.authorization !== `Bearer ${COZE_KEY}`)
      return fault(res, 4100, 'authentication is invalid');
    if (req.method !== 'POST' || path !== '/v3/chat') return fault(res, 4000, `no ${path}`);
    const why = invalid(body);
    if (why) return fault(res, 4000, `invalid parameter: ${why}`);
    if (![BOT_ID, REASONING_BOT, FAILING_BOT].includes(body.bot_id)) return fault(res, 4200, 'bot not found');
    const chat = {
      id: '7382159487131697202',
      conversation_id: '7381473525342978089',
      bot_id: body.bot_id,
      created_at: 1718792945,
      last_error: { code: 0, msg: '' },
      usage: { token_count: 0, output_count: 0, input_count: 0 },
    };
    if (body.stream !== true)
      return json(res, { code: 0, msg: '', data: { ...chat, status: 'in_progress' } });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, data: unknown) =>
      res.write(`event:${event}\ndata:${JSON.stringify(data)}\n\n`);
    const message = (type: string, content: string, extra: Record<string, unknown> = {}) => ({
      id: '7382159494123470858',
      conversation_id: chat.conversation_id,
      bot_id: chat.bot_id,
      chat_id: chat.id,
      role: 'assistant',
      type,
      content,
      content_type: 'text',
      ...extra,
    });
    send('conversation.chat.created', { ...chat, status: 'created' });
    send('conversation.chat.in_progress', { ...chat, status: 'in_progress' });
    if (body.bot_id === FAILING_BOT) {
      send('conversation.chat.failed', {
        ...chat,
        status: 'failed',
        last_error: { code: 4013, msg: 'Request frequency exceeded the limit' },
      });
      send('done', '[DONE]');
      return void res.end();
    }
    if (body.bot_id === REASONING_BOT)
      for (const r of REASONING)
        send('conversation.message.delta', message('answer', '', { reasoning_content: r }));
    for (const a of ANSWER) send('conversation.message.delta', message('answer', a));
    send('conversation.message.completed', message('answer', ANSWER.join('')));
    send(
      'conversation.message.completed',
      message(
        'verbose',
        '{"msg_type":"generate_answer_finish","data":"","from_module":null,"from_unit":null}',
      ),
    );
    send('conversation.message.completed', message('follow_up', 'What else can you do?'));
    send('conversation.chat.completed', {
      ...chat,
      status: 'completed',
      completed_at: 1718792949,
      usage: USAGE,
    });
    send('done', '[DONE]');
    res.end();
  });
  return { url: served.url, requests, close: served.close };
}
