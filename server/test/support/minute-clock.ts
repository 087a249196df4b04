import { expect } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { createMinuteLimits } from '../../src/relay/admit/limits/minute-limits.ts';
import { createWindows, type Windows } from '../../src/relay/admit/limits/windows.ts';
import { relayState } from '../../src/relay/relay-state.ts';

/** The per-minute limits of one or more gateways on a clock only the test moves. */
export interface MinuteClock {
  /** Epoch milliseconds the windows read; it stands still until the test moves it. */
  now: number;
  /**
   * Resolves once every admitted request has had its estimate corrected by its usage: the correction runs
   * after the answer is sent, so a client can send its next request before it lands.
   */
  corrected(): Promise<void>;
  /** Puts back the gateways' own limits on the real clock. */
  restore(): void;
}

export function minuteClock(ctxs: AppContext[], start = Date.now()): MinuteClock {
  let admitted = 0;
  let corrected = 0;
  const counting = (windows: Windows): Windows => ({
    async admit(limits, tokens, now) {
      const admission = await windows.admit(limits, tokens, now);
      if (!admission.ok) return admission;
      admitted++;
      const { ticket } = admission;
      return {
        ...admission,
        ticket: { correct: (used) => ticket.correct(used).finally(() => corrected++) },
      };
    },
  });
  const states = ctxs.map((ctx) => relayState(ctx));
  const real = states.map((s) => s.minuteLimits);
  const clock: MinuteClock = {
    now: start,
    corrected: () => expect.poll(() => corrected).toBe(admitted),
    restore: () =>
      states.forEach((s, i) => {
        s.minuteLimits = real[i];
      }),
  };
  for (const s of states)
    s.minuteLimits = createMinuteLimits(s.ctx, () => clock.now, counting(createWindows(s.ctx)));
  return clock;
}
