import WebSocket from 'ws';

/**
 * A client of the gateway's realtime endpoint (`GET /v1/realtime?model=`) for the realtime tests: a raw
 * WebSocket whose server events are kept in order, with a wait for the next event of a type.
 */
export interface Conn {
  ws: WebSocket;
  events: any[];
  closed: Promise<{ code: number; reason: string }>;
  /** The first event of `type` at or after index `from`. */
  next(type: string, from?: number): Promise<any>;
  send(event: unknown): void;
}

/** Keeps the server events of an open socket, parsed, in the order they came. */
export function track(ws: WebSocket): Conn {
  const events: any[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()));
    wake?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return {
    ws,
    events,
    closed,
    async next(type, from = 0) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const hit = events.slice(from).find((e) => e.type === type);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no ${type} event; got ${events.map((e) => e.type)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    send: (event) => ws.send(typeof event === 'string' ? event : JSON.stringify(event)),
  };
}

/** Opens a raw WebSocket to the gateway; a refused handshake resolves as its status and body. */
export function dial(
  url: string,
  opts: { protocols?: string[]; headers?: Record<string, string> } = {},
): Promise<Conn | { status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers });
    const conn = track(ws);
    ws.once('open', () => resolve(conn));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }),
      );
    });
    ws.once('error', reject);
  });
}

/** Whether `dial` got a session (and not a refused handshake). */
export const isConn = (x: unknown): x is Conn => !!x && typeof x === 'object' && 'ws' in x;
