import { describe, expect, it } from 'vitest';
import { ChannelBreakers } from '../src/relay/route/breaker/breaker.ts';
import type { BreakerSettings } from '../src/relay/route/breaker/settings.ts';

/** The breaker's state machine on a clock the test moves: window, threshold, cool-down, probes, sharing. */
const SETTINGS: BreakerSettings = {
  on: true,
  windowMs: 10_000,
  minRequests: 4,
  errorRate: 0.5,
  cooldownMs: 5_000,
  probes: 2,
};

function setup(settings = SETTINGS) {
  let t = 1_000_000;
  const events: unknown[] = [];
  const b = new ChannelBreakers(
    settings,
    (e) => events.push(e),
    () => t,
  );
  const attempt = (id: number, outcome: 'ok' | 'fail' | 'ignore') => {
    if (!b.usable(id)) return false;
    b.record(id, outcome, b.admit(id));
    return true;
  };
  return { b, events, attempt, tick: (ms: number) => (t += ms), now: () => t };
}

describe('channel breaker state', () => {
  it('stays closed below the minimum of requests, opens at the error share, and says so once', () => {
    const { b, events, attempt, now } = setup();
    attempt(1, 'fail');
    attempt(1, 'fail');
    attempt(1, 'ok');
    expect(b.usable(1)).toBe(true);
    attempt(1, 'ok'); // 2 of 4 failed, but the last attempt succeeded: checked on failures only
    expect(b.usable(1)).toBe(true);
    attempt(1, 'fail'); // 3 of 5
    expect(b.usable(1)).toBe(false);
    expect(b.circuit(1)).toEqual({ state: 'open', until: Math.ceil((now() + 5_000) / 1000) });
    expect(events).toEqual([{ id: 1, state: 'open', until: now() + 5_000 }]);
  });

  it('forgets attempts older than the window', () => {
    const { b, attempt, tick } = setup();
    for (let i = 0; i < 3; i++) attempt(2, 'fail');
    tick(11_000);
    attempt(2, 'ok');
    attempt(2, 'ok');
    attempt(2, 'ok');
    attempt(2, 'fail'); // 1 of 4 inside the window
    expect(b.usable(2)).toBe(true);
  });

  it('lets only the set number of probes through after the cool-down; all passing closes it', () => {
    const { b, events, attempt, tick } = setup();
    for (let i = 0; i < 4; i++) attempt(3, 'fail');
    tick(5_000);
    expect(b.circuit(3)?.state).toBe('half_open');
    const p1 = b.admit(3);
    const p2 = b.admit(3);
    expect(p1).toBeGreaterThan(0);
    expect(b.usable(3)).toBe(false); // two probes out
    b.record(3, 'ignore', p1); // a probe that proved nothing frees its slot
    expect(b.usable(3)).toBe(true);
    const p3 = b.admit(3);
    b.record(3, 'ok', p2);
    expect(b.circuit(3)?.state).toBe('half_open');
    b.record(3, 'ok', p3);
    expect(b.circuit(3)).toBeUndefined();
    expect(events.at(-1)).toEqual({ id: 3, state: 'closed', until: 0 });
  });

  it('a failed probe opens it again, and a late probe of that round no longer counts', () => {
    const { b, attempt, tick, now } = setup();
    for (let i = 0; i < 4; i++) attempt(4, 'fail');
    tick(5_000);
    const p1 = b.admit(4);
    const p2 = b.admit(4);
    b.record(4, 'fail', p1);
    expect(b.circuit(4)).toEqual({ state: 'open', until: Math.ceil((now() + 5_000) / 1000) });
    b.record(4, 'ok', p2);
    expect(b.circuit(4)?.state).toBe('open');
  });

  it('follows another instance: open until its time, closed when it closes; off ignores everything', () => {
    const { b, now } = setup();
    b.apply({ id: 5, state: 'open', until: now() + 60_000 });
    expect(b.usable(5)).toBe(false);
    b.apply({ id: 5, state: 'open', until: now() + 1_000 }); // an earlier end does not shorten it
    expect(b.circuit(5)?.until).toBe(Math.ceil((now() + 60_000) / 1000));
    b.apply({ id: 5, state: 'closed', until: 0 });
    expect(b.usable(5)).toBe(true);
    b.configure({ ...SETTINGS, on: false });
    b.apply({ id: 6, state: 'open', until: now() + 60_000 });
    for (let i = 0; i < 10; i++) b.record(6, 'fail');
    expect(b.usable(6)).toBe(true);
    expect(b.circuit(6)).toBeUndefined();
  });
});
