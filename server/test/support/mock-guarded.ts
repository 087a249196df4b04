import type { IncomingMessage, ServerResponse } from 'node:http';
import { fixtureChunks, fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * A mock OpenAI chat, Anthropic Messages and OpenAI moderation provider for the guardrail tests. Answers are
 * the recorded ones (openai/chat/text, anthropic/messages/text) with their text deltas replaced by `pieces`,
 * one delta event each, so a test decides where the stream splits a card number. Moderation answers use
 * OpenAI's documented shape with the scores a test sets.
 */
export interface GuardedMock {
  url: string;
  /** The answer text, one stream delta per piece. */
  pieces: string[];
  /**
   * Set by a test that needs its client to have read the start of a stream: the stream sends this many
   * pieces, then waits for the promise before the rest.
   */
  gate?: { after: number; open: Promise<void> };
  /** category_scores of the next moderation answers. */
  scores: Record<string, number>;
  requests: Array<{ path: string; body: any }>;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

interface Framed {
  head: string[];
  deltas: string[];
  tail: string[];
}

async function sse(res: ServerResponse, f: Framed, gate: GuardedMock['gate']) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!gate) return void res.end([...f.head, ...f.deltas, ...f.tail].join(''));
  res.write([...f.head, ...f.deltas.slice(0, gate.after)].join(''));
  await gate.open;
  if (!res.destroyed) res.end([...f.deltas.slice(gate.after), ...f.tail].join(''));
}

/** The recorded chat stream: its first chunk, one content chunk per piece, then its finish and usage chunks. */
function chatStream(pieces: string[]): Framed {
  const chunks = fixtureChunks('openai/chat/text.chunks.txt').map((c) => JSON.parse(c));
  const content = chunks[1];
  const tail = chunks.slice(-2);
  const body = pieces.map((p) => ({
    ...content,
    choices: [{ ...content.choices[0], delta: { content: p } }],
  }));
  const frame = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;
  return {
    head: [frame(chunks[0])],
    deltas: body.map(frame),
    tail: [...tail.map(frame), 'data: [DONE]\n\n'],
  };
}

/** The recorded Anthropic stream with its text deltas replaced by the pieces. */
function anthropicStream(pieces: string[]): Framed {
  const events = fixtureChunks('anthropic/messages/text.chunks.txt').map((c) => JSON.parse(c));
  const firstDelta = events.findIndex((e) => e.type === 'content_block_delta');
  const afterDeltas = events.findIndex((e) => e.type === 'content_block_stop');
  const deltas = pieces.map((text) => ({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text },
  }));
  const frame = (e: { type: string }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  return {
    head: events.slice(0, firstDelta).map(frame),
    deltas: deltas.map(frame),
    tail: events.slice(afterDeltas).map(frame),
  };
}

export async function startGuardedMock(): Promise<GuardedMock> {
  const mock: GuardedMock = { url: '', pieces: [], scores: {}, requests: [], close: async () => {} };
  const server = await serveMock(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const body = JSON.parse((await readBody(req)) || '{}');
    mock.requests.push({ path, body });
    if (path.endsWith('/moderations')) {
      const scores = { harassment: 0.0001, violence: 0.0001, ...mock.scores };
      return sendJson(res, 200, {
        id: 'modr-guarded',
        model: body.model,
        results: [
          {
            flagged: Object.values(scores).some((s) => s > 0.5),
            categories: Object.fromEntries(Object.entries(scores).map(([k, s]) => [k, s > 0.5])),
            category_scores: scores,
          },
        ],
      });
    }
    if (path.endsWith('/chat/completions')) {
      if (body.stream) return sse(res, chatStream(mock.pieces), mock.gate);
      const json = fixtureJson('openai/chat/text.json');
      json.choices[0].message.content = mock.pieces.join('');
      return sendJson(res, 200, json);
    }
    if (path.endsWith('/messages')) {
      if (!req.headers['x-api-key'] || !req.headers['anthropic-version'])
        return sendJson(res, 401, {
          type: 'error',
          error: { type: 'authentication_error', message: 'invalid x-api-key' },
        });
      if (body.stream) return sse(res, anthropicStream(mock.pieces), mock.gate);
      const json = fixtureJson('anthropic/messages/text.json');
      json.content[0].text = mock.pieces.join('');
      return sendJson(res, 200, json);
    }
    sendJson(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  });
  mock.url = server.url;
  mock.close = server.close;
  return mock;
}
