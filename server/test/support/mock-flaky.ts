import type { IncomingMessage, ServerResponse } from 'node:http';
import { fixtureText } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * An OpenAI-compatible chat upstream whose channels (told apart by their key) misbehave on demand, for
 * routing and circuit-breaker tests: answers replay the recorded chat completion, failures are OpenAI's 500
 * server_error object. Each key's behaviour can be changed while a test runs.
 */
export interface KeyBehaviour {
  /** Delay before the answer, in ms. */
  latencyMs?: number;
  /** Fail this share of requests, evenly spread (0.5 = every other one; 1 = always). */
  failShare?: number;
  /** Keep every request open, unanswered, until `release(key)`. */
  hold?: boolean;
}

export interface FlakyUpstream {
  url: string;
  set(key: string, b: KeyBehaviour): void;
  /** Requests each key received (answered or failed). */
  count(key: string): number;
  /** The most requests one key had open at the same time. */
  peak(key: string): number;
  /** Answers the requests a `hold` keeps open, and stops holding new ones. */
  release(key: string): void;
  reset(): void;
  close(): Promise<void>;
}

const ANSWER = fixtureText('openai/chat/text.json');
const SERVER_ERROR = JSON.stringify({
  error: {
    message: 'The server had an error while processing your request.',
    type: 'server_error',
    param: null,
    code: null,
  },
});

export async function startFlakyUpstream(): Promise<FlakyUpstream> {
  const behaviour = new Map<string, KeyBehaviour>();
  const counts = new Map<string, number>();
  const open = new Map<string, number>();
  const peaks = new Map<string, number>();
  /** Per key, the running failure budget that spreads failures evenly. */
  const debt = new Map<string, number>();
  /** Per key, what lets the held requests go. */
  const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  const gate = (key: string) => {
    let g = gates.get(key);
    if (!g) {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      g = { opened, open };
      gates.set(key, g);
    }
    return g.opened;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    for await (const _ of req) {
      /* drain the body */
    }
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const now = (open.get(key) ?? 0) + 1;
    open.set(key, now);
    peaks.set(key, Math.max(peaks.get(key) ?? 0, now));
    try {
      const b = behaviour.get(key) ?? {};
      if (b.hold) await gate(key);
      if (b.latencyMs) await new Promise((r) => setTimeout(r, b.latencyMs));
      const owed = (debt.get(key) ?? 0) + (b.failShare ?? 0);
      const fail = owed >= 1 - 1e-9;
      debt.set(key, fail ? owed - 1 : owed);
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(fail ? SERVER_ERROR : ANSWER);
    } finally {
      open.set(key, (open.get(key) ?? 1) - 1);
    }
  }

  const server = await serveMock(handle);
  return {
    url: server.url,
    set: (key, b) => {
      behaviour.set(key, b);
      debt.delete(key);
    },
    count: (key) => counts.get(key) ?? 0,
    peak: (key) => peaks.get(key) ?? 0,
    release: (key) => {
      behaviour.set(key, { ...behaviour.get(key), hold: false });
      gates.get(key)?.open();
      gates.delete(key);
    },
    reset: () => {
      counts.clear();
      peaks.clear();
    },
    close: server.close,
  };
}
