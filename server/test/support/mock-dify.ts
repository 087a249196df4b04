import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * A mock Dify service API on 127.0.0.1 (`POST /v1/chat-messages`), after Dify's API reference: an app key as
 * Bearer, the body checked as Dify checks it (400 `invalid_param`), blocking answers and `data:` event
 * streams with an `event` field. Which app a key opens decides the answer:
 * - DIFY_KEY, a chatbot: ping, workflow events, `message` chunks, `message_end` with usage (blocking works);
 * - DIFY_AGENT_KEY, an agent app: refuses blocking as Dify does; streams agent_thought, `agent_message`
 *   chunks and one closing `message` repeating the whole answer;
 * - DIFY_QUOTA_KEY: a stream whose only event is an `error` (provider_quota_exceeded);
 * - any other key: 401 unauthorized.
 */
export const DIFY_KEY = 'app-Chat0123456789abcdefGH';
export const DIFY_AGENT_KEY = 'app-Agent0123456789abcdefG';
export const DIFY_QUOTA_KEY = 'app-Quota0123456789abcdefG';
export const CHAT_ANSWER = ['Dify', ' says', ' hello.'];
export const CHAT_USAGE = { prompt_tokens: 30, completion_tokens: 5 };
export const AGENT_ANSWER = ['It is', ' sunny.'];
export const AGENT_USAGE = { prompt_tokens: 50, completion_tokens: 4 };

export interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const fault = (res: ServerResponse, status: number, code: string, message: string) =>
  json(res, status, { code, message, status });

const usage = (u: { prompt_tokens: number; completion_tokens: number }) => ({
  ...u,
  prompt_unit_price: '0.001',
  prompt_price_unit: '0.001',
  prompt_price: '0.0000300',
  completion_unit_price: '0.002',
  completion_price_unit: '0.001',
  completion_price: '0.0000100',
  total_tokens: u.prompt_tokens + u.completion_tokens,
  total_price: '0.0000400',
  currency: 'USD',
  latency: 0.42,
});

/** What is wrong with a chat-messages body, as Dify's parser says it, or null. */
function invalid(b: any): string | null {
  if (!b || typeof b !== 'object') return 'body must be a JSON object';
  if (typeof b.query !== 'string' || !b.query) return 'query is required';
  if (!b.inputs || typeof b.inputs !== 'object' || Array.isArray(b.inputs)) return 'inputs is required';
  if (b.response_mode !== 'blocking' && b.response_mode !== 'streaming') return 'response_mode is invalid';
  if (typeof b.user !== 'string' || !b.user) return 'user is required';
  if (b.conversation_id !== undefined && b.conversation_id !== '' && typeof b.conversation_id !== 'string')
    return 'conversation_id is invalid';
  if (b.auto_generate_name !== undefined && typeof b.auto_generate_name !== 'boolean')
    return 'auto_generate_name must be a boolean';
  for (const f of b.files ?? [])
    if (f?.type !== 'image' || f.transfer_method !== 'remote_url' || typeof f.url !== 'string')
      return 'files are invalid';
  return null;
}

export async function startDifyMock() {
  const requests: Seen[] = [];
  const served = await serveMock(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return fault(res, 400, 'invalid_param', 'the body is not JSON');
    }
    const path = (req.url ?? '').split('?')[0];
    requests.push({ path, headers: req.headers, body });
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (![DIFY_KEY, DIFY_AGENT_KEY, DIFY_QUOTA_KEY].includes(key))
      return fault(res, 401, 'unauthorized', 'Access token is invalid');
    if (req.method !== 'POST' || path !== '/v1/chat-messages')
      return fault(res, 404, 'not_found', 'Not Found');
    const why = invalid(body);
    if (why) return fault(res, 400, 'invalid_param', why);
    const ids = {
      task_id: 'c3800678-a077-43df-a102-53f23ed20b88',
      message_id: '9da23599-e713-473b-982c-4328d4f5c78a',
      conversation_id: '45701982-8118-4bc5-8e9b-64562b4555f2',
    };
    if (body.response_mode === 'blocking') {
      if (key === DIFY_AGENT_KEY)
        return fault(res, 400, 'app_unavailable', 'Agent Chat App does not support blocking mode');
      return json(res, 200, {
        event: 'message',
        id: ids.message_id,
        ...ids,
        mode: 'chat',
        answer: CHAT_ANSWER.join(''),
        metadata: { usage: usage(CHAT_USAGE), retriever_resources: [] },
        created_at: 1705407629,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ event, ...ids, created_at: 1705398420, ...extra })}\n\n`);
    res.write('event: ping\n\n');
    if (key === DIFY_QUOTA_KEY) {
      send('error', {
        status: 400,
        code: 'provider_quota_exceeded',
        message:
          'Your quota for Dify Hosted Model Provider has been exhausted. Please go to Settings -> Model Provider to complete your own provider credentials.',
      });
      return void res.end();
    }
    if (key === DIFY_AGENT_KEY) {
      const thought = {
        id: 'at-1',
        position: 1,
        tool: 'weather',
        tool_input: '{"weather": {"city": "Paris"}}',
      };
      send('agent_thought', { ...thought, thought: '', observation: '', message_files: [] });
      for (const answer of AGENT_ANSWER) send('agent_message', { answer });
      send('agent_thought', { ...thought, thought: AGENT_ANSWER.join(''), observation: 'sunny, 24C' });
      send('message', { answer: AGENT_ANSWER.join('') });
      send('message_end', { id: ids.message_id, metadata: { usage: usage(AGENT_USAGE) } });
      return void res.end();
    }
    send('workflow_started', { workflow_run_id: 'wr-1', data: { id: 'wr-1' } });
    for (const answer of CHAT_ANSWER) send('message', { answer });
    send('workflow_finished', { workflow_run_id: 'wr-1', data: { id: 'wr-1', status: 'succeeded' } });
    send('message_end', {
      id: ids.message_id,
      metadata: { usage: usage(CHAT_USAGE), retriever_resources: [] },
    });
    res.end();
  });
  return { url: served.url, requests, close: served.close };
}
