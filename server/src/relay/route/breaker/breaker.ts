import type { ChannelCircuit } from '@modelgate/shared';
import type { BreakerSettings } from './settings.ts';
import { SlidingCount } from './window.ts';

/** How an attempt on a channel ended, for the breaker: an upstream fault, a success, or neither. */
export type Outcome = 'ok' | 'fail' | 'ignore';

/** A transition other instances should follow: open until a time, or closed again. */
export interface BreakerEvent {
  id: number;
  state: 'open' | 'closed';
  /** Epoch milliseconds when an open breaker lets its first probe through; 0 when closed. */
  until: number;
}

interface Entry {
  state: 'closed' | 'open' | 'half_open';
  until: number;
  window: SlidingCount;
  /** The half-open round; probes admitted in an earlier round no longer count. */
  round: number;
  probes: number;
  passed: number;
}

/**
 * One circuit breaker per channel, in memory, decided without any I/O. Closed: attempts are counted over the
 * sliding window and the breaker opens when enough of them failed. Open: the channel is out of rotation until
 * the cool-down ends. Half-open: up to `probes` trial requests go through; when they all succeed the breaker
 * closes, and one failure opens it again for another cool-down.
 */
export class ChannelBreakers {
  private entries = new Map<number, Entry>();
  private rounds = 0;

  constructor(
    private settings: BreakerSettings,
    /** Told about every transition this instance makes (to share it). */
    private readonly onTransition: (e: BreakerEvent) => void = () => {},
    /** The clock cool-downs and the window are read from (epoch ms); a test may replace it. */
    public now: () => number = Date.now,
  ) {}

  configure(next: BreakerSettings): void {
    const windowChanged = next.windowMs !== this.settings.windowMs;
    this.settings = next;
    if (!next.on) this.entries.clear();
    else if (windowChanged)
      for (const [id, e] of this.entries) {
        if (e.state === 'closed') this.entries.delete(id);
        else e.window = new SlidingCount(next.windowMs);
      }
  }

  /** Whether the channel may take a request now (a pure check; `admit` records that it does). */
  usable(id: number): boolean {
    if (!this.settings.on) return true;
    const e = this.entries.get(id);
    if (!e || e.state === 'closed') return true;
    if (e.state === 'open') return this.now() >= e.until;
    return e.probes < this.settings.probes;
  }

  /** Records that a request goes to the channel; returns its probe round, or 0 when it is not a probe. */
  admit(id: number): number {
    if (!this.settings.on) return 0;
    const e = this.entries.get(id);
    if (!e || e.state === 'closed') return 0;
    if (e.state === 'open') {
      if (this.now() < e.until) return 0;
      e.state = 'half_open';
      e.round = ++this.rounds;
      e.probes = 0;
      e.passed = 0;
    }
    e.probes++;
    return e.round;
  }

  /** The end of an attempt that `admit` let through (`probe` is what it returned). */
  record(id: number, outcome: Outcome, probe = 0): void {
    if (!this.settings.on) return;
    let e = this.entries.get(id);
    if (probe) {
      if (e?.state !== 'half_open' || e.round !== probe) return;
      if (outcome === 'ignore') e.probes--;
      else if (outcome === 'fail') this.open(id, this.now() + this.settings.cooldownMs);
      else if (++e.passed >= this.settings.probes) this.close(id);
      return;
    }
    if (outcome === 'ignore' || (e && e.state !== 'closed')) return;
    if (!e) {
      e = {
        state: 'closed',
        until: 0,
        window: new SlidingCount(this.settings.windowMs),
        round: 0,
        probes: 0,
        passed: 0,
      };
      this.entries.set(id, e);
    }
    const now = this.now();
    e.window.add(now, outcome === 'fail');
    if (outcome !== 'fail') return;
    const { total, failed } = e.window.sums(now);
    if (total >= this.settings.minRequests && failed >= total * this.settings.errorRate)
      this.open(id, now + this.settings.cooldownMs);
  }

  /** Follows a transition another instance made. */
  apply(event: BreakerEvent): void {
    if (!this.settings.on) return;
    const e = this.entries.get(event.id);
    if (event.state === 'closed') {
      if (e && e.state !== 'closed') this.entries.delete(event.id);
      return;
    }
    if (e?.state === 'open' && e.until >= event.until) return;
    this.entries.set(event.id, this.opened(event.until));
  }

  /** The channel's breaker for the console; undefined when it is closed. */
  circuit(id: number): ChannelCircuit | undefined {
    const e = this.entries.get(id);
    if (!this.settings.on || !e || e.state === 'closed') return undefined;
    const until = Math.ceil(e.until / 1000);
    return e.state === 'open' && this.now() < e.until
      ? { state: 'open', until }
      : { state: 'half_open', until };
  }

  private opened(until: number): Entry {
    return {
      state: 'open',
      until,
      window: new SlidingCount(this.settings.windowMs),
      round: 0,
      probes: 0,
      passed: 0,
    };
  }

  private open(id: number, until: number): void {
    this.entries.set(id, this.opened(until));
    this.onTransition({ id, state: 'open', until });
  }

  private close(id: number): void {
    this.entries.delete(id);
    this.onTransition({ id, state: 'closed', until: 0 });
  }
}
