import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';

/**
 * System access tokens (`GET /api/user/token`): 32 random URL-safe characters, shown to the user once.
 * Only their SHA-256 is stored in `users.access_token` (the token has 192 random bits, so a fast hash is
 * enough to make a leaked database useless for logging in).
 */
export function newAccessToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: hashAccessToken(token) };
}

export const hashAccessToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Extracts the token from an `Authorization` header value (an optional leading `Bearer `). */
export function tokenFromHeader(header: string | undefined): string {
  if (!header) return '';
  return header.replace(/^Bearer\s+/i, '').trim();
}

/** The id of the (not deleted) user owning this token, or undefined. */
export async function userIdForAccessToken(ctx: AppContext, token: string): Promise<number | undefined> {
  if (!token || token.length > 200) return undefined;
  const row = await ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('access_token', '=', hashAccessToken(token))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** Stores a new token for the user, replacing the previous one, and returns it (the only time it is visible). */
export async function issueAccessToken(ctx: AppContext, userId: number): Promise<string> {
  const { token, hash } = newAccessToken();
  await ctx.db.db.updateTable('users').set({ access_token: hash }).where('id', '=', userId).execute();
  return token;
}
