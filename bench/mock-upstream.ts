import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's upstream: the smallest OpenAI-compatible chat and Anthropic Messages server, answering at
 * once, so the figures measure the gateway rather than a model. Runs in its own process; prints its port to
 * the parent.
 */
const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1770933883,
  model: 'gpt-4o-mini',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I help you today?' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 },
});

const words = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today', '?'];
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1770933883, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const stream = [
  chunk({ role: 'assistant', content: '' }),
  ...words.map((w) => chunk({ content: w })),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1770933883, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 } })}\n\n`,
  'data: [DONE]\n\n',
];

const message = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});
const event = (name: string, payload: object) => `event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`;
const messageStream = [
  event('message_start', {
    type: 'message_start',
    message: {
      ...JSON.parse(message),
      content: [],
      stop_reason: null,
      usage: { input_tokens: 9, output_tokens: 1 },
    },
  }),
  event('content_block_start', {
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '' },
  }),
  ...words.map((w) =>
    event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: w },
    }),
  ),
  event('content_block_stop', { type: 'content_block_stop', index: 0 }),
  event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 9 },
  }),
  event('message_stop', { type: 'message_stop' }),
];

// Gemini (`/v1beta/models/{model}:generateContent`, `:streamGenerateContent?alt=sse`), for the mix benchmark.
const geminiChunk = (text: string, last: boolean) =>
  JSON.stringify({
    candidates: [
      { content: { role: 'model', parts: [{ text }] }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 },
    ],
    ...(last ? { usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 9, totalTokenCount: 18 } } : {}),
    modelVersion: 'gemini-bench',
  });
const geminiAnswer = geminiChunk('Hello! How can I help you today?', true);
const geminiStream = words.map((w, i) => `data: ${geminiChunk(w, i === words.length - 1)}\r\n\r\n`);

const server = createServer((req, res) => {
  if (req.url?.startsWith('/v1beta/models/') || req.url?.startsWith('/v1/models/')) {
    req.resume();
    req.on('end', () => {
      if (!req.url?.includes(':streamGenerateContent')) {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(geminiAnswer),
        });
        res.end(geminiAnswer);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const c of geminiStream) res.write(c);
      res.end();
    });
    return;
  }
  const anthropic = req.url === '/v1/messages';
  const parts: Buffer[] = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const streaming = Buffer.concat(parts).includes('"stream":true');
    if (!streaming) {
      const body = anthropic ? message : completion;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const c of anthropic ? messageStream : stream) res.write(c);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
