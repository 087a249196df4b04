import { ChannelStatus, isAdmin, TokenStatus, UserStatus } from '@modelgate/shared';
import type { RelayRequest } from '../http/exchange.ts';
import { keyFromProtocols } from '../realtime/protocols.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import type { TokenEntry } from '../table-cache/tokens.ts';
import type { UserEntry } from '../table-cache/users.ts';
import { probeCaller } from './probe-callers.ts';

/** Who is calling: the token (absent on the playground), its owner, the effective group, an admin's pinned channel. */
export interface Caller {
  user: UserEntry;
  token: TokenEntry | null;
  tokenName: string;
  group: string;
  pinned?: ChannelEntry;
  /** The gateway's own probes (admit/probe-callers.ts): told of each request's whole run and of each quota charged. */
  probe?: { track(run: Promise<unknown>): void; charged(quota: number): void };
}

const unauthorized = (msg: string, code = 'invalid_api_key') =>
  new RelayError(401, msg, 'invalid_request_error', code);
const forbidden = (msg: string, code: string) => new RelayError(403, msg, 'invalid_request_error', code);

/** Where a route family reads the key from, besides `Authorization: Bearer`. */
export interface KeySources {
  xApiKey?: boolean;
  google?: boolean;
  /** Midjourney clients: `mj-api-secret` when Authorization is absent or the placeholder `midjourney-proxy`. */
  mjSecret?: boolean;
  /** OpenAI Realtime browser clients: the `openai-insecure-api-key.<key>` WebSocket subprotocol. */
  subprotocol?: boolean;
}

function rawKey(req: RelayRequest, sources: KeySources): string {
  const h = req.headers;
  if (sources.xApiKey && typeof h['x-api-key'] === 'string' && h['x-api-key']) return h['x-api-key'];
  if (sources.google) {
    if (typeof h['x-goog-api-key'] === 'string' && h['x-goog-api-key']) return h['x-goog-api-key'];
    const q = (req.query as Record<string, unknown> | undefined)?.key;
    if (typeof q === 'string' && q) return q;
  }
  const auth = typeof h.authorization === 'string' ? h.authorization.replace(/^bearer\s+/i, '').trim() : '';
  const secret = h['mj-api-secret'];
  if (sources.mjSecret && (!auth || auth === 'midjourney-proxy') && typeof secret === 'string')
    return secret.replace(/^bearer\s+/i, '').trim();
  if (sources.subprotocol && !auth) return keyFromProtocols(h['sec-websocket-protocol']);
  return auth;
}

/** Groups a user may route through: the UserUsableGroups option plus the user's own group. */
export function usableGroups(state: RelayState, user: UserEntry): Set<string> {
  const opt = state.ctx.options.json<Record<string, unknown>>('UserUsableGroups');
  const set = new Set(opt && typeof opt === 'object' ? Object.keys(opt) : []);
  set.add(user.group);
  return set;
}

/**
 * Token authentication: key, token status, expiry, quota, owner, admin channel pin, token group. The caller at
 * once when the token and its owner are in memory (every request but the first), else a promise of it; a refusal
 * is thrown either way, so `await authenticate(...)` reads the same as for an async function.
 */
export function authenticate(
  state: RelayState,
  req: RelayRequest,
  sources: KeySources = {},
): Caller | Promise<Caller> {
  let key = rawKey(req, sources);
  if (!key) throw unauthorized('no API key provided (use Authorization: Bearer sk-...)');
  const probe = probeCaller(key);
  if (probe) return probe;
  if (key.startsWith('sk-')) key = key.slice(3);
  const parts = key.split('-');
  if (parts.length > 2 || !parts[0]) throw unauthorized('invalid API key');
  const token = state.tokens.get(parts[0]);
  return token instanceof Promise
    ? token.then((t) => withToken(state, t, parts))
    : withToken(state, token, parts);
}

function withToken(state: RelayState, token: TokenEntry | null, parts: string[]): Caller | Promise<Caller> {
  if (!token) throw unauthorized('invalid API key');
  if (token.status === TokenStatus.Exhausted)
    throw unauthorized('this API key has used up its quota', 'token_exhausted');
  if (token.status === TokenStatus.Expired) throw unauthorized('this API key has expired', 'token_expired');
  if (token.status !== TokenStatus.Enabled) throw unauthorized('this API key is disabled', 'token_disabled');
  if (token.expiredTime !== -1 && token.expiredTime * 1000 < Date.now())
    throw unauthorized('this API key has expired', 'token_expired');
  if (!token.unlimited && token.balance.available <= 0) {
    throw new RelayError(
      403,
      'this API key has used up its quota',
      'insufficient_quota',
      'token_quota_exhausted',
    );
  }
  const user = state.users.get(token.userId);
  return user instanceof Promise
    ? user.then((u) => callerOf(state, token, u, parts))
    : callerOf(state, token, user, parts);
}

function callerOf(state: RelayState, token: TokenEntry, user: UserEntry | null, parts: string[]): Caller {
  if (!user || user.status === UserStatus.Deleted) throw unauthorized('invalid API key');
  if (user.status !== UserStatus.Enabled) throw forbidden('this user is banned', 'user_banned');

  let pinned: ChannelEntry | undefined;
  if (parts.length === 2) {
    if (!isAdmin(user.role))
      throw forbidden(
        'only administrators may pin a channel with sk-<key>-<channel id>',
        'channel_pin_not_allowed',
      );
    const id = Number(parts[1]);
    const ch = Number.isInteger(id) && id > 0 ? state.channels.get(id) : undefined;
    if (!ch)
      throw new RelayError(
        400,
        `invalid channel id: ${parts[1]}`,
        'invalid_request_error',
        'invalid_channel_id',
      );
    if (ch.status !== ChannelStatus.Enabled) throw forbidden(`channel ${id} is disabled`, 'channel_disabled');
    pinned = ch;
  }

  let group = user.group;
  if (token.group) {
    if (!usableGroups(state, user).has(token.group))
      throw forbidden(`group ${token.group} is not available to this user`, 'group_not_allowed');
    if (!state.prices.hasGroup(token.group))
      throw forbidden(`group ${token.group} has been retired`, 'group_not_allowed');
    group = token.group;
  }
  return { user, token, tokenName: token.name, group, pinned };
}

/** The token's IP allow list (addresses or CIDR ranges; empty = anywhere). */
export function checkAllowedIp(token: TokenEntry | null, ip: string): void {
  if (token && !token.allowIps.open && !token.allowIps.allows(ip)) {
    throw forbidden("your IP address is not on this API key's allow list", 'ip_not_allowed');
  }
}
