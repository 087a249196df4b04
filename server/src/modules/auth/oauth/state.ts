import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../infra/envelope.ts';

/**
 * The OAuth `state` (CSRF guard for the provider round trip) and an optional referral code, kept in a signed
 * HttpOnly cookie for 10 minutes between `GET /api/oauth/state` and the callback, then dropped.
 */
const COOKIE = 'oauth_state';
const MAX_AGE_SEC = 600;

export function issueState(reply: FastifyReply, aff: string): string {
  const state = randomBytes(9).toString('base64url');
  const safeAff = /^[A-Za-z0-9]{1,32}$/.test(aff) ? aff : '';
  reply.setCookie(COOKIE, `${state}.${safeAff}`, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    signed: true,
    maxAge: MAX_AGE_SEC,
  });
  return state;
}

/** Checks the callback's `state` against the cookie (403 when absent or different); returns the referral code. */
export function takeState(
  req: FastifyRequest,
  reply: FastifyReply,
  given: string | undefined,
): { aff: string } {
  const raw = req.cookies?.[COOKIE];
  const unsigned = raw ? req.unsignCookie(raw) : undefined;
  const [state, aff = ''] = unsigned?.valid && unsigned.value ? unsigned.value.split('.') : [];
  if (!state || !given || state !== given)
    throw new ApiError('state is empty or does not match; start the sign-in again', 403);
  reply.clearCookie(COOKIE, { path: '/' });
  return { aff };
}
