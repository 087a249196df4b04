import { Role, UserStatus } from '@modelgate/shared';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import type { UserSnapshot } from '../users/cache.ts';
import { tokenFromHeader, userIdForAccessToken } from './access-token.ts';
import { readSession } from './session.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated console user, set by the guards below (fresh from `ctx.users`). */
    user?: UserSnapshot;
    /** How the user authenticated: the session cookie or a system access token. */
    authVia?: 'session' | 'access_token';
  }
}

export const USER_ID_HEADER = 'new-api-user';

/** The user of a valid console session cookie, if any (binding needs one). */
export async function sessionUser(ctx: AppContext, req: FastifyRequest): Promise<UserSnapshot | undefined> {
  const session = readSession(req);
  const user = session ? await ctx.users.get(session.id) : undefined;
  return user && session && user.session_tag === session.tag && !ctx.sessions.has(session.sid)
    ? user
    : undefined;
}

/**
 * Who is calling: a valid session cookie (it wins), else the system access token in `Authorization`.
 * Throws 401 for missing or invalid credentials. Does not check the `New-Api-User` header, status or role.
 */
export async function authenticate(
  ctx: AppContext,
  req: FastifyRequest,
): Promise<{ user: UserSnapshot; via: 'session' | 'access_token' }> {
  const session = readSession(req);
  if (session) {
    const user = await ctx.users.get(session.id);
    if (user && user.session_tag === session.tag && !ctx.sessions.has(session.sid))
      return { user, via: 'session' };
  }
  const token = tokenFromHeader(req.headers.authorization);
  if (token) {
    const id = await userIdForAccessToken(ctx, token);
    const user = id === undefined ? undefined : await ctx.users.get(id);
    if (!user) throw new ApiError('invalid access token', 401);
    return { user, via: 'access_token' };
  }
  if (session === undefined) throw new ApiError('not logged in and no access token provided', 401);
  throw new ApiError('login expired or the account no longer exists, please log in again', 401);
}

/** Every console call carries the user id header, and it must name the authenticated user. */
function checkUserIdHeader(req: FastifyRequest, user: UserSnapshot): void {
  const raw = req.headers[USER_ID_HEADER];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value.trim() === '') throw new ApiError('missing New-Api-User header', 401);
  if (!/^\d+$/.test(value.trim())) throw new ApiError('New-Api-User header must be a user id', 401);
  if (Number(value.trim()) !== user.id)
    throw new ApiError('New-Api-User does not match the logged-in user', 401);
}

const ROLE_NAMES: Record<number, string> = {
  [Role.Common]: 'a logged-in user',
  [Role.Admin]: 'an administrator',
  [Role.Root]: 'the root user',
};

/** A preHandler letting through users with at least `minRole` who are not banned; sets `req.user`. */
export function requireRole(ctx: AppContext, minRole: number): preHandlerAsyncHookHandler {
  return async (req) => {
    const { user, via } = await authenticate(ctx, req);
    checkUserIdHeader(req, user);
    if (user.status !== UserStatus.Enabled) throw new ApiError('this user has been banned', 403);
    if (user.role < minRole)
      throw new ApiError(
        `permission denied: only ${ROLE_NAMES[minRole] ?? `role ${minRole}`} may do this`,
        403,
      );
    req.user = user;
    req.authVia = via;
  };
}

export const requireUser = (ctx: AppContext) => requireRole(ctx, Role.Common);
export const requireAdmin = (ctx: AppContext) => requireRole(ctx, Role.Admin);
export const requireRoot = (ctx: AppContext) => requireRole(ctx, Role.Root);

/**
 * For public routes that show more to a logged-in user (pricing): sets `req.user` when the caller has a
 * valid session or access token and is enabled; never rejects.
 */
export function tryUser(ctx: AppContext): preHandlerAsyncHookHandler {
  return async (req) => {
    try {
      const { user, via } = await authenticate(ctx, req);
      if (user.status === UserStatus.Enabled) {
        req.user = user;
        req.authVia = via;
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  };
}
