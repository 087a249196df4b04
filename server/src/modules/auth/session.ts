import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console session: an HttpOnly cookie `session` holding `<user id>.<issued at, unix seconds>.<tag>.<sid>`,
 * signed (HMAC-SHA256) with SESSION_SECRET by @fastify/cookie, so every instance sharing the secret accepts
 * it. The tag digests the user's password hash and session version at login, so a password change or
 * "log out everywhere" ends every older session; the random sid lets logout revoke this one session
 * (revoked-sessions.ts). Role and status are not in it: they are read fresh from `ctx.users` on every request.
 */
export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SEC = 30 * 24 * 3600;

export interface Session {
  id: number;
  tag: string;
  sid: string;
  /** Unix seconds when the cookie expires. */
  expiresAt: number;
}

/** Secure when the request came over HTTPS, directly or from a trusted proxy (X-Forwarded-Proto). */
const cookieOptions = (req: FastifyRequest) =>
  ({ path: '/', httpOnly: true, sameSite: 'strict', secure: req.protocol === 'https' }) as const;

export function setSession(
  req: FastifyRequest,
  reply: FastifyReply,
  userId: number,
  tag: string,
  now = Date.now(),
): void {
  const sid = randomBytes(16).toString('hex');
  reply.setCookie(SESSION_COOKIE, `${userId}.${Math.floor(now / 1000)}.${tag}.${sid}`, {
    ...cookieOptions(req),
    signed: true,
    maxAge: SESSION_MAX_AGE_SEC,
  });
}

export function clearSession(req: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(req));
}

/** The session of a valid, unexpired session cookie; undefined when absent; null when invalid. */
export function readSession(req: FastifyRequest, now = Date.now()): Session | undefined | null {
  const raw = req.cookies?.[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = req.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  const m = /^(\d{1,15})\.(\d{1,12})\.([\w-]{1,32})\.([0-9a-f]{32})$/.exec(unsigned.value);
  if (!m) return null;
  const id = Number(m[1]);
  const issuedAt = Number(m[2]);
  const ageSec = now / 1000 - issuedAt;
  if (id <= 0 || ageSec > SESSION_MAX_AGE_SEC || ageSec < -300) return null;
  return { id, tag: m[3], sid: m[4], expiresAt: issuedAt + SESSION_MAX_AGE_SEC };
}
