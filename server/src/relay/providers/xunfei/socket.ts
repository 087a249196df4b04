import WebSocket from 'ws';
import { adminUrlPolicy, guardedLookup, literalRefusal } from '../../../infra/ssrf.ts';
import { networkError } from '../../call/upstream-client.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import { RelayError, upstreamError } from '../../relay-error.ts';
import type { ProviderSend } from '../types.ts';
import { frameCode } from './errors.ts';

/** The longest wait for the handshake, and for the next frame once the answer has begun. */
const HANDSHAKE_MS = 30_000;
const IDLE_MS = 120_000;
/** The most of a refused handshake's body that is read (it is an error message). */
const REFUSAL_BYTES = 4096;

const timedOut = () =>
  new RelayError(504, 'upstream timed out', 'upstream_error', 'upstream_timeout', null, false);

/**
 * One Spark exchange over a WebSocket: connects (through the SSRF guard, the administrator's policy), sends
 * the request, and yields the answer's frames, parsed, as they arrive, until the last one or an error frame.
 * The handshake finishes before the frames are asked for, so a refused key or an unreachable host fails the
 * attempt as an ordinary upstream error (another channel may answer). An abort closes the socket.
 */
export async function openExchange(
  url: string,
  body: string,
  req: Pick<ProviderSend, 'signal' | 'options'>,
  secrets: string[],
): Promise<AsyncGenerator<unknown>> {
  const policy = () => adminUrlPolicy(req.options);
  // Address literals are never looked up: judged here, as the HTTP relay does once per origin.
  if (literalRefusal(url.replace(/^ws/, 'http'), policy()))
    throw networkError(Object.assign(new Error('refused address'), { code: 'ESSRF' }));
  if (req.signal.aborted) throw timedOut();
  const ws = new WebSocket(url, {
    lookup: guardedLookup(policy),
    handshakeTimeout: HANDSHAKE_MS,
    perMessageDeflate: false,
    followRedirects: false,
  });
  const queue: unknown[] = [];
  let failure: RelayError | null = null;
  let closed = false;
  let wake: (() => void) | null = null;
  let refuse: ((e: RelayError) => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const fail = (e: RelayError) => {
    failure ??= e;
    closed = true;
    refuse?.(failure);
    ws.terminate();
    notify();
  };
  // One listener only: the relay's CallAbort keeps the last one registered.
  req.signal.on('abort', () => fail(timedOut()));
  ws.on('error', (err) =>
    fail(/handshake has timed out/i.test(err.message) ? timedOut() : networkError(err)),
  );
  ws.on('message', (data: WebSocket.RawData) => {
    const text = Array.isArray(data) ? Buffer.concat(data).toString() : data.toString();
    queue.push(parseJsonOrNull(text) ?? text);
    notify();
  });
  ws.on('close', () => {
    closed = true;
    notify();
  });
  ws.once('unexpected-response', (_request, res) => {
    const parts: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      if (size < REFUSAL_BYTES) parts.push(c);
      size += c.length;
    });
    res.on('error', () => fail(networkError(new Error('the handshake answer broke off'))));
    res.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8').slice(0, REFUSAL_BYTES);
      fail(upstreamError(res.statusCode ?? 502, text, secrets));
    });
  });
  await new Promise<void>((resolve, reject) => {
    refuse = reject;
    ws.once('open', () => {
      refuse = null;
      resolve();
    });
  });
  ws.send(body);
  return frames();

  async function* frames(): AsyncGenerator<unknown> {
    let idle: NodeJS.Timeout | undefined;
    try {
      for (;;) {
        const frame = queue.shift();
        if (frame !== undefined) {
          yield frame;
          const last = (frame as { header?: { status?: unknown } })?.header?.status === 2;
          if (last || frameCode(frame) !== null) return;
          continue;
        }
        if (failure) throw failure;
        if (closed) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
          idle = setTimeout(() => fail(timedOut()), IDLE_MS);
        });
        clearTimeout(idle);
      }
    } finally {
      clearTimeout(idle);
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
      else ws.terminate();
    }
  }
}
