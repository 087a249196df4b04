import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, errors } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAbort } from '../src/relay/call/call-abort.ts';
import { SilenceWatch } from '../src/relay/call/silence-watch.ts';
import { DispatchedCall } from '../src/relay/call/upstream-response.ts';

/** The upstream call's body on a real loopback server: whole reads, chunked reads, backpressure and aborts. */
let server: Server;
let origin: string;
const agent = new Agent({ keepAliveTimeout: 1000 });
const silence = new SilenceWatch();
let bigWritten = 0;
let bigClosed: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/pieces') return void pieces(res, ['{"a":', '"héllo', ' wörld"', '}']);
    if (req.url === '/big') return void big(res);
    if (req.url === '/hang') return void res.writeHead(200).write('first');
    if (req.url === '/silent') return; // never answers
    res.writeHead(404).end('nothing here');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  silence.stop();
  await agent.close();
  server.close();
});

async function pieces(res: ServerResponse, parts: string[]) {
  res.writeHead(200, { 'content-type': 'application/json', 'x-one': 'a' });
  for (const p of parts) {
    // UTF-8 split across chunks on purpose: the body decodes the bytes whole.
    const bytes = Buffer.from(p);
    res.write(bytes.subarray(0, 1));
    await new Promise((r) => setTimeout(r, 5));
    res.write(bytes.subarray(1));
  }
  res.end();
}

/** 8 MB in 64 KB writes, as fast as the socket takes them; counts what the socket accepted. */
function big(res: ServerResponse) {
  bigWritten = 0;
  bigClosed = once(res, 'close');
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const chunk = Buffer.alloc(64 * 1024, 120);
  const pump = () => {
    while (bigWritten < 8 * 1024 * 1024) {
      bigWritten += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

const send = (path: string, signal?: CallAbort | AbortSignal, silentMs?: number) =>
  DispatchedCall.send(
    agent,
    { origin, path, method: 'GET', headersTimeout: 0, bodyTimeout: 0 },
    signal,
    silentMs ? { watch: silence, ms: silentMs } : undefined,
  );

describe('DispatchedCall', () => {
  it('reads a body that arrives in pieces as one text, with the status and headers', async () => {
    const res = await send('/pieces');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-one']).toBe('a');
    expect(JSON.parse(await res.body.text())).toEqual({ a: 'héllo wörld' });
    const missing = await send('/nowhere');
    expect(missing.statusCode).toBe(404);
    expect(await missing.body.text()).toBe('nothing here');
  });

  it('gives every byte to a chunked reader, and holds the upstream while the reader is behind', async () => {
    const res = await send('/big');
    const it = res.body[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    // The reader stops: the socket is paused, so the server cannot write everything (its buffers fill).
    await new Promise((r) => setTimeout(r, 300));
    expect(bigWritten).toBeLessThan(8 * 1024 * 1024);
    let total = (first.value as Buffer).length;
    for (let r = await it.next(); !r.done; r = await it.next()) total += r.value.length;
    expect(total).toBe(8 * 1024 * 1024);
  });

  it('a reader that stops early ends the upstream call', async () => {
    const res = await send('/big');
    for await (const _ of res.body) break;
    await bigClosed;
    expect(bigWritten).toBeLessThan(8 * 1024 * 1024);
  });

  it("the caller's signal fails a pending read and a pending answer", async () => {
    const abort = new CallAbort();
    const res = await send('/hang', abort);
    const it = res.body[Symbol.asyncIterator]();
    expect((await it.next()).value?.toString()).toBe('first');
    const pending = it.next();
    abort.abort(new DOMException('relay timeout', 'TimeoutError'));
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });

    // The timer fires during the read, or (on a busy machine) before the answer's head: a TimeoutError either way.
    const timeout = AbortSignal.timeout(50);
    await expect(send('/hang', timeout).then((hung) => hung.body.text())).rejects.toMatchObject({
      name: 'TimeoutError',
    });

    const early = new CallAbort();
    early.abort();
    await expect(send('/pieces', early)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('ends a call whose upstream stays silent for its limit: before the head, and between chunks', async () => {
    let started = performance.now();
    await expect(send('/silent', undefined, 300)).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);

    const res = await send('/hang', undefined, 300);
    const it = res.body[Symbol.asyncIterator]();
    expect((await it.next()).value?.toString()).toBe('first');
    started = performance.now();
    await expect(it.next()).rejects.toBeInstanceOf(errors.BodyTimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('does not count the time a reader is behind as the upstream being silent', async () => {
    const res = await send('/big', undefined, 300);
    const it = res.body[Symbol.asyncIterator]();
    const first = await it.next();
    // The reader stops for three times the limit: the upstream is held, not silent.
    await new Promise((r) => setTimeout(r, 900));
    let total = (first.value as Buffer).length;
    for (let r = await it.next(); !r.done; r = await it.next()) total += r.value.length;
    expect(total).toBe(8 * 1024 * 1024);
  });
});
