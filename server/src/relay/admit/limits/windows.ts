import type { AppContext } from '../../../context.ts';
import { memoryWindows } from './memory-windows.ts';
import { redisWindows } from './redis-windows.ts';

/** Every per-minute limit counts the last 60 seconds, sliding. */
export const WINDOW_MS = 60_000;

/** One window a request is counted in, with its caps per minute (0 = no limit). */
export interface WindowLimit {
  key: string;
  rpm: number;
  tpm: number;
  /** Who the window belongs to, for the refusal message: "this API key", "group vip, gpt-4o, per user". */
  label: string;
}

/** A window's content as the admission saw it. */
export interface WindowCount {
  requests: number;
  tokens: number;
  /** Milliseconds until the oldest request in the window leaves it; 0 when the window is empty. */
  resetMs: number;
}

export type LimitKind = 'requests' | 'tokens';

export type Admission =
  /** Counted in every window; `counts` include this request. */
  | { ok: true; counts: WindowCount[]; ticket: Ticket }
  /**
   * Counted nowhere: window `refused` has no room for it by `kind` before `retryMs` (the longest wait of the
   * windows that refused); `counts` are as they were.
   */
  | { ok: false; counts: WindowCount[]; refused: number; kind: LimitKind; retryMs: number };

/** An admitted request's entries, to replace its estimate with the tokens it really used. */
export interface Ticket {
  correct(tokens: number): Promise<void>;
}

/**
 * Sliding one-minute windows of requests and their tokens. `admit` checks every window and adds the request to
 * all of them, or to none, in one atomic step: concurrent requests cannot all slip past a cap.
 */
export interface Windows {
  admit(limits: WindowLimit[], tokens: number, now: number): Promise<Admission>;
}

/**
 * The tokens a window must have room for. A window with tokens in it refuses a request that would pass its cap;
 * an empty one admits any request, so one larger than the cap goes alone instead of never (admitted tokens stay
 * within the cap plus one request's size). A request estimated at 0 still needs a token of room.
 */
export const tokensNeeded = (tokens: number) => Math.max(tokens, 1);

/** The windows in memory on one instance, or in Redis when configured so every instance shares them. */
export function createWindows(ctx: AppContext): Windows {
  return ctx.redis ? redisWindows(ctx.redis) : memoryWindows();
}
