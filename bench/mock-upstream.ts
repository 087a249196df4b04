import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The benchmark's upstream: the smallest OpenAI-compatible chat server, answering at once, so the figures
 * measure the gateway rather than a model. Runs in its own process; prints its port to the parent.
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

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const streaming = Buffer.concat(parts).includes('"stream":true');
    if (!streaming) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(completion),
      });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const c of stream) res.write(c);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
