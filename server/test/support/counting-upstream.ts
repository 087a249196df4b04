import type { IncomingMessage } from 'node:http';
import { fixtureChunks, fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * An OpenAI upstream (chat completions and Responses) that counts tokens its own way, as real providers do (other tokenizers, hidden system
 * prompts, images priced by their size): it replays a recorded answer (openai/chat/text.json and
 * openai/responses/text.json, and their streams) with the usage replaced by `factor` times a plain count of the prompt it received
 * (UTF-8 bytes / 3 plus a few tokens per message, the gateway's own estimate), plus `imageTokens` per image,
 * and an answer of the request's whole `max_tokens` (half of it when the factor is below 1).
 */
export interface CountingUpstream {
  url: string;
  factor: number;
  imageTokens: number;
  /** Chat requests answered. */
  calls: number;
  close(): Promise<void>;
}

/** Chat `messages`, or Responses `input` (a string or a list of message items). */
function promptCount(body: any, imageTokens: number): number {
  let bytes = 0;
  let images = 0;
  const input = typeof body.input === 'string' ? [{ content: body.input }] : body.input;
  const messages: any[] = Array.isArray(body.messages) ? body.messages : Array.isArray(input) ? input : [];
  for (const m of messages) {
    if (typeof m.content === 'string') bytes += Buffer.byteLength(m.content);
    else if (Array.isArray(m.content))
      for (const p of m.content) {
        if (typeof p?.text === 'string') bytes += Buffer.byteLength(p.text);
        if (p?.type === 'image_url' || p?.type === 'input_image') images++;
      }
  }
  return Math.ceil(bytes / 3) + 3 * messages.length + 3 + images * imageTokens;
}

const readJson = async (req: IncomingMessage) => {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
};

export async function startCountingUpstream(factor = 1): Promise<CountingUpstream> {
  const answer = fixtureJson('openai/chat/text.json');
  const chunks = fixtureChunks('openai/chat/text.chunks.txt').map((l) => JSON.parse(l));
  const response = fixtureJson('openai/responses/text.json');
  const events = fixtureChunks('openai/responses/text.chunks.txt').map((l) => JSON.parse(l));
  const mock: CountingUpstream = { url: '', factor, imageTokens: 0, calls: 0, close: async () => {} };
  const served = await serveMock(async (req, res) => {
    const body = await readJson(req);
    const path = req.url ?? '';
    if (path.startsWith('/v1/responses')) {
      mock.calls++;
      const maxTokens = Number(body.max_output_tokens ?? 16);
      const input = Math.max(1, Math.round(mock.factor * promptCount(body, mock.imageTokens)));
      const output = mock.factor < 1 ? Math.ceil(maxTokens / 2) : maxTokens;
      const usage = {
        ...response.usage,
        input_tokens: input,
        output_tokens: output,
        total_tokens: input + output,
      };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...response, model: body.model, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const e of events) {
        const out = e.type === 'response.completed' ? { ...e, response: { ...e.response, usage } } : e;
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(out)}\n\n`);
      }
      res.end();
      return;
    }
    if (!path.startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    mock.calls++;
    const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? 16);
    const prompt = Math.max(1, Math.round(mock.factor * promptCount(body, mock.imageTokens)));
    const completion = mock.factor < 1 ? Math.ceil(maxTokens / 2) : maxTokens;
    const usage = { ...answer.usage, prompt_tokens: prompt, completion_tokens: completion };
    usage.total_tokens = prompt + completion;
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...answer, model: body.model, usage }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const c of chunks) {
      if (c.usage) {
        if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...c, usage })}\n\n`);
      } else res.write(`data: ${JSON.stringify({ ...c, model: body.model })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  });
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
