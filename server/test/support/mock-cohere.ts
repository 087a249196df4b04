import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Cohere's API on 127.0.0.1, after its API reference and the cohere-typescript SDK: Chat v2
 * (`/v2/chat`, plain and streamed as named SSE events), `/v2/embed`, `/v2/rerank` and `/v1/models`, behind a
 * Bearer key. Like Cohere it refuses bodies with unknown fields or malformed messages (400 `{id, message}`),
 * an unknown key with 401 and an expired one (keys starting `Expired`) with its own 498.
 *
 * Chat answers: the last message a tool result -> text quoting it; tools offered -> a get_weather call with a
 * tool plan; otherwise a greeting. Usage reports billed units and raw tokens (which add the template's).
 */
export const COHERE_KEY = 'Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ2kL4nP6r';
export const GREETING = ['Hello', ' from', ' Cohere!', ' How can I help?'];
export const GREETING_USAGE = { input: 11, output: 7 };
export const PLAN = ['I will look up', ' the weather in Paris.'];
export const CALL_ARGS = ['{"location":', ' "Paris"}'];
export const CALL_USAGE = { input: 25, output: 14 };
export const RESULT_USAGE = { input: 40, output: 9 };

export interface Seen {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: any;
}

const CHAT_FIELDS = new Set([
  'model',
  'messages',
  'tools',
  'strict_tools',
  'documents',
  'citation_options',
  'response_format',
  'safety_mode',
  'max_tokens',
  'stop_sequences',
  'temperature',
  'seed',
  'frequency_penalty',
  'presence_penalty',
  'k',
  'p',
  'logprobs',
  'tool_choice',
  'thinking',
  'priority',
  'stream',
]);
const EMBED_FIELDS = new Set([
  'texts',
  'images',
  'model',
  'input_type',
  'inputs',
  'max_tokens',
  'output_dimension',
  'embedding_types',
  'truncate',
  'priority',
]);
const RERANK_FIELDS = new Set(['model', 'query', 'documents', 'top_n', 'max_tokens_per_doc', 'priority']);
const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);

const isObj = (v: unknown): v is Record<string, any> => !!v && typeof v === 'object' && !Array.isArray(v);
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const refuse = (message: string) => {
  throw Object.assign(new Error(message), { refused: true });
};

function unknownFields(body: Record<string, unknown>, allowed: Set<string>) {
  for (const k of Object.keys(body)) if (!allowed.has(k)) refuse(`invalid request: unknown field: ${k}`);
}

/** Cohere's v2 message rules: roles, content shapes, tool calls and tool results. */
function checkMessages(messages: unknown) {
  if (!Array.isArray(messages) || !messages.length)
    refuse('invalid request: messages must be a non-empty list');
  for (const m of messages as any[]) {
    if (!isObj(m)) refuse('invalid request: each message must be an object');
    const textBlocks = (c: unknown, types: string[]) =>
      typeof c === 'string' || (Array.isArray(c) && c.every((b) => isObj(b) && types.includes(b.type)));
    switch (m.role) {
      case 'system':
        if (!textBlocks(m.content, ['text'])) refuse('invalid request: system content must be text');
        break;
      case 'user':
        if (!textBlocks(m.content, ['text', 'image_url']))
          refuse('invalid request: user content must be text or image_url blocks');
        for (const b of Array.isArray(m.content) ? m.content : [])
          if (b.type === 'image_url' && typeof b.image_url?.url !== 'string')
            refuse('invalid request: image_url.url is required');
        break;
      case 'assistant':
        if (m.content !== undefined && !textBlocks(m.content, ['text', 'thinking']))
          refuse('invalid request: assistant content must be text');
        if (m.content === undefined && !Array.isArray(m.tool_calls))
          refuse('invalid request: an assistant message needs content or tool_calls');
        for (const tc of m.tool_calls ?? [])
          if (
            typeof tc?.id !== 'string' ||
            tc.type !== 'function' ||
            typeof tc.function?.name !== 'string' ||
            typeof tc.function?.arguments !== 'string'
          )
            refuse('invalid request: malformed tool call');
        break;
      case 'tool':
        if (typeof m.tool_call_id !== 'string') refuse('invalid request: tool_call_id is required');
        if (!textBlocks(m.content, ['text', 'document'])) refuse('invalid request: malformed tool content');
        break;
      default:
        refuse(`invalid request: unknown role ${m.role}`);
    }
  }
}

function checkChat(body: Record<string, any>) {
  unknownFields(body, CHAT_FIELDS);
  if (typeof body.model !== 'string' || !body.model) refuse('invalid request: model is required');
  checkMessages(body.messages);
  for (const t of body.tools ?? [])
    if (t?.type !== 'function' || typeof t.function?.name !== 'string' || !isObj(t.function?.parameters))
      refuse('invalid request: malformed tool');
  if (body.p !== undefined && (body.p < 0.01 || body.p > 0.99))
    refuse('invalid request: p must be in [0.01, 0.99]');
  if (body.k !== undefined && (body.k < 0 || body.k > 500)) refuse('invalid request: k must be in [0, 500]');
  if (body.tool_choice !== undefined && !['REQUIRED', 'NONE'].includes(body.tool_choice))
    refuse('invalid request: tool_choice must be REQUIRED or NONE');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    refuse('invalid request: stream must be a boolean');
}

const usageOf = (u: { input: number; output: number }) => ({
  billed_units: { input_tokens: u.input, output_tokens: u.output },
  tokens: { input_tokens: u.input + 70, output_tokens: u.output },
});

const textOfContent = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((b) => b?.text ?? '').join('') : '';

type Answer =
  | { kind: 'text'; chunks: string[]; usage: { input: number; output: number } }
  | { kind: 'call'; usage: { input: number; output: number } };

function answerFor(body: Record<string, any>): Answer {
  const last = body.messages.at(-1);
  if (last.role === 'tool')
    return { kind: 'text', chunks: ['The tool said: ', textOfContent(last.content)], usage: RESULT_USAGE };
  if (body.tools?.length && body.tool_choice !== 'NONE') return { kind: 'call', usage: CALL_USAGE };
  return { kind: 'text', chunks: GREETING, usage: GREETING_USAGE };
}

const CALL_ID = 'get_weather_k8f2n4mq7x1z';

function plain(res: ServerResponse, a: Answer) {
  const message =
    a.kind === 'text'
      ? { role: 'assistant', content: [{ type: 'text', text: a.chunks.join('') }] }
      : {
          role: 'assistant',
          tool_plan: PLAN.join(''),
          tool_calls: [
            {
              id: CALL_ID,
              type: 'function',
              function: { name: 'get_weather', arguments: CALL_ARGS.join('') },
            },
          ],
        };
  json(res, 200, {
    id: 'c14c80c3-18eb-4519-9460-6c92edd8cfb4',
    message,
    finish_reason: a.kind === 'text' ? 'COMPLETE' : 'TOOL_CALL',
    usage: usageOf(a.usage),
  });
}

function streamed(res: ServerResponse, a: Answer) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (type: string, payload: Record<string, unknown> = {}) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
  send('message-start', {
    id: '29f14a5a-11de-4cae-9800-25e4747408ea',
    delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
  });
  if (a.kind === 'text') {
    send('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
    for (const text of a.chunks)
      send('content-delta', { index: 0, delta: { message: { content: { text } } } });
    send('content-end', { index: 0 });
  } else {
    for (const tool_plan of PLAN) send('tool-plan-delta', { delta: { message: { tool_plan } } });
    send('tool-call-start', {
      index: 0,
      delta: {
        message: {
          tool_calls: { id: CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '' } },
        },
      },
    });
    for (const args of CALL_ARGS)
      send('tool-call-delta', {
        index: 0,
        delta: { message: { tool_calls: { function: { arguments: args } } } },
      });
    send('tool-call-end', { index: 0 });
  }
  send('message-end', {
    delta: { finish_reason: a.kind === 'text' ? 'COMPLETE' : 'TOOL_CALL', usage: usageOf(a.usage) },
  });
  res.end();
}

const words = (s: string) => s.toLowerCase().split(/\W+/).filter(Boolean);

export async function startCohereMock() {
  const requests: Seen[] = [];
  const served = await serveMock(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const body = raw ? JSON.parse(raw) : undefined;
    const path = (req.url ?? '').split('?')[0];
    requests.push({ path, method: req.method ?? '', headers: req.headers, body });
    const auth = String(req.headers.authorization ?? '');
    if (auth.startsWith('Bearer Expired'))
      return json(res, 498, { id: 'e1', message: 'invalid or expired api token' });
    if (auth !== `Bearer ${COHERE_KEY}`) return json(res, 401, { id: 'e2', message: 'invalid api token' });
    try {
      if (req.method === 'GET' && path === '/v1/models')
        return json(res, 200, {
          models: [
            { name: 'command-r-08-2024', endpoints: ['generate', 'chat', 'summarize'] },
            { name: 'embed-english-v3.0', endpoints: ['embed', 'classify'] },
            { name: 'rerank-v3.5', endpoints: ['rerank'] },
          ],
          next_page_token: '',
        });
      if (req.method !== 'POST') return json(res, 404, { id: 'e3', message: `no ${path}` });
      if (!isObj(body)) refuse('invalid request: body must be a JSON object');
      if (path === '/v2/chat') {
        checkChat(body);
        const a = answerFor(body);
        return body.stream ? streamed(res, a) : plain(res, a);
      }
      if (path === '/v2/embed') {
        unknownFields(body, EMBED_FIELDS);
        if (!INPUT_TYPES.has(body.input_type)) refuse('invalid request: input_type is required');
        if (!Array.isArray(body.texts) || !body.texts.every((t: unknown) => typeof t === 'string'))
          refuse('invalid request: texts must be a list of strings');
        if (!body.embedding_types?.includes('float')) refuse('invalid request: embedding_types');
        return json(res, 200, {
          id: 'emb-1',
          response_type: 'embeddings_by_type',
          embeddings: { float: body.texts.map((t: string) => [t.length / 10, 0.5, -0.25]) },
          texts: body.texts,
          meta: {
            api_version: { version: '2' },
            billed_units: {
              input_tokens: body.texts.reduce((n: number, t: string) => n + words(t).length, 0),
            },
          },
        });
      }
      if (path === '/v2/rerank') {
        unknownFields(body, RERANK_FIELDS);
        if (typeof body.query !== 'string' || !body.query) refuse('invalid request: query is required');
        if (!Array.isArray(body.documents) || !body.documents.every((d: unknown) => typeof d === 'string'))
          refuse('invalid request: documents must be a list of strings');
        const q = new Set(words(body.query));
        const scored = body.documents
          .map((d: string, index: number) => ({
            index,
            relevance_score: words(d).filter((w) => q.has(w)).length / (words(d).length || 1),
          }))
          .sort((x: any, y: any) => y.relevance_score - x.relevance_score);
        return json(res, 200, {
          id: 'rr-1',
          results: typeof body.top_n === 'number' ? scored.slice(0, body.top_n) : scored,
          meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
        });
      }
      return json(res, 404, { id: 'e4', message: `no ${path}` });
    } catch (err) {
      if ((err as { refused?: boolean }).refused)
        return json(res, 400, { id: 'e5', message: (err as Error).message });
      throw err;
    }
  });
  return { url: served.url, requests, close: served.close };
}
