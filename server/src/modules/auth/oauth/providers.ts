import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../../../context.ts';
import { ApiError } from '../../../infra/envelope.ts';
import { adminUrlPolicy, type GuardedFetchOptions, guardedFetch } from '../../../infra/ssrf.ts';
import { serverAddress } from '../../options/server-address.ts';

/** What a provider tells us about the person signing in. */
export interface ExternalIdentity {
  id: string;
  username?: string;
  displayName?: string;
  email?: string;
}

/** Fixed provider addresses; tests point them at local stand-ins speaking the same protocol. */
export const oauthEndpoints = {
  githubToken: 'https://github.com/login/oauth/access_token',
  githubUser: 'https://api.github.com/user',
  linuxdoToken: 'https://connect.linux.do/oauth2/token',
  linuxdoUser: 'https://connect.linux.do/api/user',
};

/** One call to a sign-in provider, through the SSRF guard (administrator-set endpoints: see infra/ssrf.ts). */
async function call(
  ctx: AppContext,
  name: string,
  url: string,
  init: Omit<GuardedFetchOptions, 'policy'>,
): Promise<any> {
  let res: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    res = await guardedFetch(url, { ...init, policy: adminUrlPolicy(ctx.options), timeoutMs: 10_000 });
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw err;
    throw new ApiError(`could not reach ${name}; try again later`, 502);
  }
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`${name} answered something unexpected (HTTP ${res.status})`, 502);
  }
  if (!res.ok || body?.error) {
    const why = body?.error_description || body?.error || body?.message || `HTTP ${res.status}`;
    throw new ApiError(`${name} refused the sign-in: ${why}`);
  }
  return body;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}`, Accept: 'application/json' });

export async function githubIdentity(ctx: AppContext, code: string): Promise<ExternalIdentity> {
  const o = ctx.options;
  const token = await call(ctx, 'GitHub', oauthEndpoints.githubToken, {
    method: 'POST',
    headers: { 'content-type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      client_id: o.get('GitHubClientId'),
      client_secret: o.get('GitHubClientSecret'),
      code,
    }),
  });
  if (!token.access_token) throw new ApiError('GitHub refused the sign-in: no access token');
  const user = await call(ctx, 'GitHub', oauthEndpoints.githubUser, { headers: bearer(token.access_token) });
  if (user.id === undefined || user.id === null) throw new ApiError('GitHub did not return a user id', 502);
  return {
    id: String(user.id),
    username: user.login,
    displayName: user.name || user.login,
    email: user.email || '',
  };
}

export async function oidcIdentity(ctx: AppContext, code: string): Promise<ExternalIdentity> {
  const o = ctx.options;
  const redirect = `${serverAddress(o, 'OIDC sign-in')}/oauth/oidc`;
  const token = await call(ctx, 'the OIDC provider', o.get('oidc.token_endpoint'), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      client_id: o.get('oidc.client_id'),
      client_secret: o.get('oidc.client_secret'),
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirect,
    }),
  });
  if (!token.access_token) throw new ApiError('the OIDC provider refused the sign-in: no access token');
  const info = await call(ctx, 'the OIDC provider', o.get('oidc.user_info_endpoint'), {
    headers: bearer(token.access_token),
  });
  if (!info.sub) throw new ApiError('the OIDC provider did not return a subject (sub)', 502);
  return {
    id: String(info.sub),
    username: info.preferred_username,
    displayName: info.name,
    email: info.email || '',
  };
}

export async function linuxdoIdentity(
  ctx: AppContext,
  code: string,
  redirectUri: string,
): Promise<ExternalIdentity> {
  const o = ctx.options;
  const basic = Buffer.from(`${o.get('LinuxDOClientId')}:${o.get('LinuxDOClientSecret')}`).toString('base64');
  const token = await call(ctx, 'Linux DO', oauthEndpoints.linuxdoToken, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
      Authorization: `Basic ${basic}`,
    },
    body: new URLSearchParams({ code, grant_type: 'authorization_code', redirect_uri: redirectUri }),
  });
  if (!token.access_token) throw new ApiError('Linux DO refused the sign-in: no access token');
  const user = await call(ctx, 'Linux DO', oauthEndpoints.linuxdoUser, {
    headers: bearer(token.access_token),
  });
  if (user.id === undefined || user.id === null) throw new ApiError('Linux DO did not return a user id', 502);
  return { id: String(user.id), username: user.username, displayName: user.name || user.username };
}

/** The WeChat server (an external helper) turns the code the user got from the official account into an id. */
export async function wechatIdentity(ctx: AppContext, code: string): Promise<ExternalIdentity> {
  const o = ctx.options;
  const base = o.get('WeChatServerAddress').replace(/\/+$/, '');
  const body = await call(
    ctx,
    'the WeChat server',
    `${base}/api/wechat/user?code=${encodeURIComponent(code)}`,
    {
      headers: { Authorization: o.get('WeChatServerToken'), Accept: 'application/json' },
    },
  );
  if (body.success === false) throw new ApiError(body.message || 'the WeChat code is wrong or has expired');
  if (!body.data) throw new ApiError('the WeChat code is wrong or has expired');
  return { id: String(body.data), displayName: 'WeChat User' };
}

/**
 * The Telegram login widget's signature: HMAC-SHA256 over the sorted `key=value` lines of every field but
 * `hash`, keyed with SHA-256(bot token); logins older than a day are refused.
 */
export function telegramIdentity(
  ctx: AppContext,
  query: Record<string, unknown>,
  now = Date.now(),
): ExternalIdentity {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) if (typeof v === 'string') fields[k] = v;
  const { hash = '', ...rest } = fields;
  const check = Object.keys(rest)
    .sort()
    .map((k) => `${k}=${rest[k]}`)
    .join('\n');
  const secret = createHash('sha256').update(ctx.options.get('TelegramBotToken')).digest();
  const expected = createHmac('sha256', secret).update(check).digest('hex');
  if (
    !rest.id ||
    hash.length !== expected.length ||
    !timingSafeEqual(Buffer.from(hash), Buffer.from(expected))
  ) {
    throw new ApiError('invalid Telegram login data');
  }
  if (now / 1000 - Number(rest.auth_date) > 86400)
    throw new ApiError('the Telegram login has expired; sign in again');
  return {
    id: rest.id,
    username: rest.username,
    displayName: [rest.first_name, rest.last_name].filter(Boolean).join(' '),
  };
}
