import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { sessionUser } from './guard.ts';

/** Cloudflare's siteverify endpoint; tests point it at a local stand-in speaking the same protocol. */
export const turnstileEndpoint = { url: 'https://challenges.cloudflare.com/turnstile/v0/siteverify' };

/**
 * The bot check (option TurnstileCheckEnabled) on login, registration and e-mail routes: the widget's token
 * comes in the query as `turnstile` and is verified with the secret key before the handler runs.
 */
export function turnstileCheck(ctx: AppContext): preHandlerAsyncHookHandler {
  return async (req: FastifyRequest) => {
    if (!ctx.options.bool('TurnstileCheckEnabled')) return;
    // A logged-in caller passed the check when logging in (e-mail binding sends no widget token).
    if (await sessionUser(ctx, req)) return;
    const token = (req.query as Record<string, unknown> | undefined)?.turnstile;
    if (typeof token !== 'string' || token.trim() === '') {
      throw new ApiError('the bot check has not finished: retry in a few seconds');
    }
    const form = new URLSearchParams({
      secret: ctx.options.get('TurnstileSecretKey'),
      response: token,
      remoteip: req.ip,
    });
    let outcome: { success?: boolean };
    try {
      const res = await fetch(turnstileEndpoint.url, {
        method: 'POST',
        body: form,
        signal: AbortSignal.timeout(10_000),
      });
      outcome = (await res.json()) as { success?: boolean };
    } catch (err) {
      req.log.warn({ err: (err as Error).message }, 'turnstile verification unreachable');
      throw new ApiError('the bot check service could not be reached; retry in a moment', 502);
    }
    if (outcome.success !== true) throw new ApiError('the bot check failed; refresh the page and retry');
  };
}
