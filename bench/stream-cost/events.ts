/**
 * The bench's stream (bench/mock-upstream.ts): an OpenAI chat answer of nine words, its finish chunk, the
 * usage-only chunk the gateway asks for, and `[DONE]`, each event in its own read as a socket delivers a stream
 * written event by event.
 */
const words = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today', '?'];
const head = {
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 1770933883,
  model: 'gpt-4o-mini',
};
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export const STREAM_EVENTS: Buffer[] = [
  chunk({ role: 'assistant', content: '' }),
  ...words.map((w) => chunk({ content: w })),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 } })}\n\n`,
  'data: [DONE]\n\n',
].map((s) => Buffer.from(s));

export async function* upstreamBody(): AsyncGenerator<Buffer> {
  for (const b of STREAM_EVENTS) yield b;
}

/** The client's side: a response that takes every write (no socket, never full) and counts the bytes. */
export function sinkResponse() {
  let bytes = 0;
  const res: any = {
    socket: null,
    headersSent: false,
    writableEnded: false,
    writableFinished: false,
    on: () => res,
    once: () => res,
    writeHead: () => {
      res.headersSent = true;
      return res;
    },
    write: (s: string | Uint8Array) => {
      bytes += s.length;
      return true;
    },
    end: (s?: string) => {
      if (s) bytes += s.length;
      res.writableEnded = res.writableFinished = true;
    },
  };
  return { res, bytes: () => bytes };
}

/**
 * Runs `one` for the warm-up streams, then for the measured ones, and prints the bytes the client got (so the
 * work cannot be skipped). `process.cpuUsage()` marks the measured part's start and end: run.ts has callgrind
 * dump its counters on entering `uv_getrusage`, so the part between the two marks is counted alone.
 */
export async function runStreams(one: () => Promise<number>): Promise<void> {
  const warm = Number(process.argv[2] ?? 3000);
  const n = Number(process.argv[3] ?? 1000);
  let total = 0;
  for (let i = 0; i < warm; i++) total += await one();
  process.cpuUsage();
  for (let i = 0; i < n; i++) total += await one();
  process.cpuUsage();
  console.log(`streams ${warm} + ${n} bytes ${total}`);
}
