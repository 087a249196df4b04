import {
  type Admission,
  type LimitKind,
  tokensNeeded,
  WINDOW_MS,
  type WindowCount,
  type WindowLimit,
  type Windows,
} from './windows.ts';

interface Entry {
  at: number;
  tokens: number;
  /** False once the entry has left its window: a late correction must not touch the window's total. */
  live: boolean;
}

/** One window: its entries oldest first (from `head`), and their tokens summed. */
class Window {
  private entries: Entry[] = [];
  private head = 0;
  tokens = 0;

  get requests(): number {
    return this.entries.length - this.head;
  }

  prune(now: number): void {
    const cutoff = now - WINDOW_MS;
    const list = this.entries;
    while (this.head < list.length && list[this.head].at <= cutoff) {
      const e = list[this.head++];
      e.live = false;
      this.tokens -= e.tokens;
    }
    if (this.head > 1024 && this.head * 2 > list.length) {
      this.entries = list.slice(this.head);
      this.head = 0;
    }
  }

  add(entry: Entry): void {
    this.entries.push(entry);
    this.tokens += entry.tokens;
  }

  count(now: number): WindowCount {
    const oldest = this.entries[this.head];
    return {
      requests: this.requests,
      tokens: this.tokens,
      resetMs: oldest ? oldest.at + WINDOW_MS - now : 0,
    };
  }

  /** Milliseconds until a request of `need` tokens fits under `limit` of `kind`. */
  waitFor(kind: LimitKind, limit: number, need: number, now: number): number {
    const list = this.entries;
    if (kind === 'requests') return list[this.head + this.requests - limit].at + WINDOW_MS - now;
    let left = this.tokens;
    for (let i = this.head; i < list.length; i++) {
      left -= list[i].tokens;
      if (left <= 0 || left + need <= limit) return list[i].at + WINDOW_MS - now;
    }
    return WINDOW_MS;
  }
}

/** The windows of one instance. Admission is synchronous, so it is atomic without a lock. */
export function memoryWindows(): Windows {
  const windows = new Map<string, Window>();
  let sweptAt = 0;

  // Windows nobody used for a minute are empty: drop them now and then so the map does not grow forever.
  const sweep = (now: number) => {
    sweptAt = now;
    for (const [key, w] of windows) {
      w.prune(now);
      if (w.requests === 0) windows.delete(key);
    }
  };

  return {
    async admit(limits: WindowLimit[], tokens: number, now: number): Promise<Admission> {
      if (now - sweptAt > WINDOW_MS) sweep(now);
      const need = tokensNeeded(tokens);
      const list = limits.map((l) => {
        let w = windows.get(l.key);
        if (!w) {
          w = new Window();
          windows.set(l.key, w);
        }
        w.prune(now);
        return w;
      });
      let refused = -1;
      let kind: LimitKind = 'requests';
      let retryMs = -1;
      const consider = (i: number, k: LimitKind, limit: number) => {
        const ms = list[i].waitFor(k, limit, need, now);
        if (ms > retryMs) [refused, kind, retryMs] = [i, k, ms];
      };
      limits.forEach((l, i) => {
        const w = list[i];
        if (l.rpm > 0 && w.requests >= l.rpm) consider(i, 'requests', l.rpm);
        if (l.tpm > 0 && w.tokens > 0 && w.tokens + need > l.tpm) consider(i, 'tokens', l.tpm);
      });
      if (refused >= 0)
        return {
          ok: false,
          counts: list.map((w) => w.count(now)),
          refused,
          kind,
          retryMs: Math.max(0, retryMs),
        };
      const entries = list.map((w) => {
        const e: Entry = { at: now, tokens, live: true };
        w.add(e);
        return e;
      });
      return {
        ok: true,
        counts: list.map((w) => w.count(now)),
        ticket: {
          async correct(used: number) {
            entries.forEach((e, i) => {
              if (!e.live) return;
              list[i].tokens += used - e.tokens;
              e.tokens = used;
            });
          },
        },
      };
    },
  };
}
