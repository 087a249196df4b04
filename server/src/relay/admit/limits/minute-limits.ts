import type { AppContext } from '../../../context.ts';
import type { RelayReply } from '../../http/exchange.ts';
import { RelayError } from '../../relay-error.ts';
import type { Caller } from '../auth.ts';
import { durationText, limitHeaders } from './headers.ts';
import { windowsFor } from './scopes.ts';
import { createWindows, type WindowCount, type WindowLimit, type Windows } from './windows.ts';

/** An admitted request: tell it the tokens the answer really used (0 when it failed). */
export interface MinuteTicket {
  settle(tokens: number): void;
}

/**
 * Requests and tokens per minute, per token (its rpm_limit and tpm_limit) and per group and model (option
 * GroupModelRateLimit). A request is counted at the start with the tokens its hold is based on (prompt estimate
 * plus the largest answer) and corrected by the usage once known, so the windows follow real use. A refusal is a
 * 429 with `retry-after` and OpenAI's x-ratelimit-* headers; an admitted request carries those headers too.
 */
export interface MinuteLimits {
  /**
   * Null, at once (no promise on the request path), when no limit applies to the caller and model. Else sets
   * the headers on `reply` and resolves to the ticket, or rejects with the 429.
   */
  acquire(
    caller: Caller,
    model: string,
    tokens: number,
    reply: Pick<RelayReply, 'header'>,
  ): Promise<MinuteTicket> | null;
}

const CAP_NAME = { requests: 'requests per min (RPM)', tokens: 'tokens per min (TPM)' } as const;

function refusalMessage(
  model: string,
  limit: WindowLimit,
  count: WindowCount,
  kind: 'requests' | 'tokens',
  tokens: number,
  retryMs: number,
): string {
  const head = `Rate limit reached for ${model} on ${CAP_NAME[kind]} of ${limit.label}`;
  const figures =
    kind === 'requests'
      ? `Limit ${limit.rpm}, Used ${count.requests}, Requested 1`
      : `Limit ${limit.tpm}, Used ${count.tokens}, Requested ${tokens}`;
  return `${head}: ${figures}. Please try again in ${durationText(retryMs)}.`;
}

/** `now` is the clock the windows read (a test may move it past a window). */
export function createMinuteLimits(
  ctx: AppContext,
  now: () => number = Date.now,
  windows: Windows = createWindows(ctx),
): MinuteLimits {
  const admit = async (
    limits: ReturnType<typeof windowsFor>,
    model: string,
    tokens: number,
    reply: Pick<RelayReply, 'header'>,
  ): Promise<MinuteTicket> => {
    const admission = await windows.admit(limits, tokens, now());
    if (!admission.ok) {
      const { refused, kind, retryMs, counts } = admission;
      const headers = limitHeaders(limits, counts, { index: refused, kind, retryMs });
      for (const [k, v] of Object.entries(headers)) reply.header(k, v);
      reply.header('retry-after', String(Math.max(1, Math.ceil(retryMs / 1000))));
      throw new RelayError(
        429,
        refusalMessage(model, limits[refused], counts[refused], kind, tokens, retryMs),
        kind,
        'rate_limit_exceeded',
      );
    }
    for (const [k, v] of Object.entries(limitHeaders(limits, admission.counts))) reply.header(k, v);
    const { ticket } = admission;
    return {
      settle(used) {
        ticket.correct(used).catch((err) => ctx.log.warn({ err }, 'rate limit correction failed'));
      },
    };
  };
  return {
    acquire(caller, model, tokens, reply) {
      const limits = windowsFor(ctx.options, caller, model);
      return limits.length ? admit(limits, model, tokens, reply) : null;
    },
  };
}
