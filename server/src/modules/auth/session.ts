import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * The console session: an HttpOnly cookie `session` holding `<user id>.<issued at, unix seconds>.<tag>`,
 * signed (HMAC-SHA256) with SESSION_SECRET by @fastify/cookie, so every instance sharing the secret accepts
 * it. The tag is the user's `session_tag` at login, so changing the password ends every older session.
 * Role and status are not in it: they are read fresh from `ctx.users` on every request.
 */
export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SEC = 30 * 24 * 3600;

export function setSession(reply: FastifyReply, userId: number, tag: string, now = Date.now()): void {
  reply.setCookie(SESSION_COOKIE, `${userId}.${Math.floor(now / 1000)}.${tag}`, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    signed: true,
    maxAge: SESSION_MAX_AGE_SEC,
  });
}

export function clearSession(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict' });
}

/** The user id and tag of a valid, unexpired session cookie; undefined when absent; null when invalid. */
export function readSession(
  req: FastifyRequest,
  now = Date.now(),
): { id: number; tag: string } | undefined | null {
  const raw = req.cookies?.[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = req.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return null;
  const m = /^(\d{1,15})\.(\d{1,12})\.([\w-]{1,32})$/.exec(unsigned.value);
  if (!m) return null;
  const id = Number(m[1]);
  const issuedAt = Number(m[2]);
  const ageSec = now / 1000 - issuedAt;
  if (id <= 0 || ageSec > SESSION_MAX_AGE_SEC || ageSec < -300) return null;
  return { id, tag: m[3] };
}
