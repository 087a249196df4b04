import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A mock OpenAI-compatible provider on 127.0.0.1 that replays the recorded fixtures in
 * server/test/fixtures/upstream (chat: openai, deepseek, xai, mistral; plain and stream).
 *
 * There are no recordings for embeddings, images, speech, transcription, moderation or rerank: those answers
 * are built here from OpenAI's (and Jina's, for rerank) documented response shapes.
 *
 * The channel key picks a misbehaviour, so one mock serves healthy and broken channels alike:
 *   sk-fail500   -> 500 server_error          sk-timeout  -> never answers
 *   sk-badkey*   -> 401 invalid_api_key (the message echoes the key, as OpenAI does)
 *   sk-quota     -> 429 insufficient_quota    sk-midstream -> a stream that dies after a few chunks
 *   sk-nousage   -> answers without any usage object
 *   sk-slowstart -> a stream that stays silent for 1.5 s before its first chunk
 *   sk-streamerr -> a 200 stream whose only event is an error object
 *   sk-truncated -> a stream that ends cleanly after a few chunks, with no finish and no [DONE]
 *   sk-stall     -> a stream that goes silent after a few chunks and never ends (until the gateway hangs up)
 */
export { FIXTURES, fixtureChunks, fixtureJson, fixtureText } from './fixtures.ts';

import { fixtureChunks, fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

export interface SeenRequest {
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: any;
  raw: Buffer;
}

export interface MockUpstream {
  url: string;
  requests: SeenRequest[];
  /** Delay before each stream chunk, in ms (0 = as fast as possible). */
  chunkDelayMs: number;
  close(): Promise<void>;
}

/** Which recording answers a chat request: by model family, with tools -> the tool-call recording. */
export function chatFixture(model: string, tools: boolean, stream: boolean): string {
  const provider = model.startsWith('deepseek')
    ? 'deepseek'
    : model.startsWith('grok')
      ? 'xai'
      : model.startsWith('mistral')
        ? 'mistral'
        : 'openai';
  let name = 'text';
  if (tools)
    name =
      provider === 'openai'
        ? 'text-then-tool-call'
        : provider === 'deepseek'
          ? 'reasoning-tool-call'
          : 'tool-call';
  else if (model === 'deepseek-reasoner') name = 'reasoning';
  return `${provider}/chat/${name}.${stream ? 'chunks.txt' : 'json'}`;
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

export async function startMockUpstream(): Promise<MockUpstream> {
  const mock: MockUpstream = { url: '', requests: [], chunkDelayMs: 0, close: async () => {} };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0];
    const type = String(req.headers['content-type'] ?? '');
    let body: any = null;
    if (type.includes('json')) body = JSON.parse(raw.toString('utf8'));
    mock.requests.push({ path, query: (req.url ?? '').split('?')[1] ?? '', headers: req.headers, body, raw });
    const key = String(req.headers.authorization ?? req.headers['api-key'] ?? '').replace(/^Bearer /, '');

    if (key === 'sk-timeout') return; // never answers
    if (key === 'sk-fail500')
      return sendJson(res, 500, {
        error: {
          message: 'The server had an error while processing your request.',
          type: 'server_error',
          param: null,
          code: null,
        },
      });
    if (key.startsWith('sk-badkey')) {
      return sendJson(res, 401, {
        error: {
          message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
    if (key === 'sk-quota')
      return sendJson(res, 429, fixtureJson('openai/responses/error-insufficient-quota.json'));
    const noUsage = key === 'sk-nousage';

    if (path.endsWith('/chat/completions')) {
      const rel = chatFixture(
        body.model,
        Array.isArray(body.tools) && body.tools.length > 0,
        body.stream === true,
      );
      if (!body.stream) {
        const json = fixtureJson(rel);
        if (noUsage) delete json.usage;
        return sendJson(res, 200, json);
      }
      let chunks = fixtureChunks(rel);
      const wantsUsage = body.stream_options?.include_usage === true;
      // OpenAI and xAI only send the trailing usage-only chunk when asked; the others always inline it.
      if (!wantsUsage || noUsage)
        chunks = chunks.filter((c) => !(JSON.parse(c).choices?.length === 0 && JSON.parse(c).usage));
      if (noUsage)
        chunks = chunks.map((c) => {
          const o = JSON.parse(c);
          delete o.usage;
          return JSON.stringify(o);
        });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      if (key === 'sk-slowstart') await new Promise((r) => setTimeout(r, 1500));
      if (key === 'sk-streamerr') {
        res.end(
          `data: ${JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error', code: null } })}\n\n`,
        );
        return;
      }
      const limit =
        key === 'sk-midstream' || key === 'sk-truncated' || key === 'sk-stall' ? 5 : chunks.length;
      for (let i = 0; i < limit; i++) {
        res.write(`data: ${chunks[i]}\n\n`);
        if (mock.chunkDelayMs) await new Promise((r) => setTimeout(r, mock.chunkDelayMs));
        if (res.destroyed) return;
      }
      if (key === 'sk-midstream') {
        await new Promise((r) => setTimeout(r, 20));
        res.socket?.destroy();
        return;
      }
      if (key === 'sk-truncated') return void res.end();
      if (key === 'sk-stall') return;
      res.end('data: [DONE]\n\n');
      return;
    }
    if (path.endsWith('/embeddings')) {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const tokens = inputs.reduce((n: number, s: string) => n + Math.ceil(String(s).length / 4), 0);
      return sendJson(res, 200, {
        object: 'list',
        data: inputs.map((_: unknown, index: number) => ({
          object: 'embedding',
          index,
          embedding: [0.0023064255, -0.009327292, 0.015797347],
        })),
        model: body.model,
        ...(noUsage ? {} : { usage: { prompt_tokens: tokens, total_tokens: tokens } }),
      });
    }
    if (path.endsWith('/moderations')) {
      return sendJson(res, 200, {
        id: 'modr-mock',
        model: body.model,
        results: [{ flagged: false, categories: { violence: false }, category_scores: { violence: 0.0001 } }],
      });
    }
    if (path.endsWith('/images/generations')) {
      const n = body.n ?? 1;
      return sendJson(res, 200, {
        created: 1713833628,
        data: Array.from({ length: n }, () => ({
          url: 'https://example.com/image.png',
          revised_prompt: body.prompt,
        })),
      });
    }
    if (path.endsWith('/audio/speech')) {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xfb]));
      return;
    }
    if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
      return sendJson(res, 200, {
        text: 'Hello from the recording.',
        usage: { type: 'duration', seconds: 3.2 },
      });
    }
    if (path.endsWith('/rerank')) {
      return sendJson(res, 200, {
        model: body.model,
        usage: { total_tokens: 38 },
        results: body.documents.map((d: string, index: number) => ({
          index,
          relevance_score: 1 / (index + 1),
          document: { text: d },
        })),
      });
    }
    sendJson(res, 404, {
      error: { message: `mock has no ${path}`, type: 'invalid_request_error', param: null, code: null },
    });
  }

  const served = await serveMock(handle);
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
