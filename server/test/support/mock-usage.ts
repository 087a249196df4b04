import type { IncomingMessage } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * An OpenAI-compatible chat upstream whose answers ("ok") report exactly the usage the test sets, after
 * `delayMs`: for tests that count tokens (per-minute limits) and need the figures to be known in advance.
 * Streams end with the usage chunk OpenAI sends when `stream_options.include_usage` is set.
 */
export interface UsageMock {
  url: string;
  usage: { prompt: number; completion: number };
  delayMs: number;
  /** Chat requests received. */
  calls: number;
  close(): Promise<void>;
}

const readJson = (req: IncomingMessage) =>
  new Promise<any>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8') || '{}'));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });

export async function startUsageMock(): Promise<UsageMock> {
  const mock: UsageMock = {
    url: '',
    usage: { prompt: 10, completion: 10 },
    delayMs: 0,
    calls: 0,
    close: async () => {},
  };
  const served = await serveMock(async (req, res) => {
    const body = await readJson(req);
    if (!(req.url ?? '').startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      return;
    }
    mock.calls++;
    if (mock.delayMs) await new Promise((r) => setTimeout(r, mock.delayMs));
    const { prompt, completion } = mock.usage;
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const base = { id: `chatcmpl-${mock.calls}`, created: Math.floor(Date.now() / 1000), model: body.model };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage,
        }),
      );
      return;
    }
    const chunk = (o: object) =>
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...o })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    );
    res.write(chunk({ choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: null }] }));
    res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    if (body.stream_options?.include_usage) res.write(chunk({ choices: [], usage }));
    res.end('data: [DONE]\n\n');
  });
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
