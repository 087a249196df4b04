import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, type Dispatcher, fetch, type RequestInit, type Response } from 'undici';
import type { OptionStore } from '../modules/options/store.ts';
import { ApiError } from './envelope.ts';

/**
 * The guard every server-side fetch made on someone's behalf goes through. Two policies:
 * - a user's URL (quota webhooks, notify hooks, image URLs): public addresses only; root may let private
 *   ones through with `fetch_setting.allow_private_ip`;
 * - an administrator's URL (channel base URLs for the relay, channel tests, model lists and balances; OAuth
 *   and OIDC endpoints): private and loopback addresses are fine (local model servers, company identity
 *   providers), but link-local and cloud-metadata addresses are refused unless root sets
 *   `fetch_setting.allow_link_local`.
 * The check runs before the request (a clear message) and again at connect time in the HTTP agent, so a DNS
 * answer that changes between the two is caught too. Redirects are refused: a public URL could otherwise
 * bounce to an internal one. IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are
 * judged by that address.
 */
export const ALLOW_PRIVATE_OPTION = 'fetch_setting.allow_private_ip';
export const ALLOW_LINK_LOCAL_OPTION = 'fetch_setting.allow_link_local';

/** Which non-public addresses a fetch may reach. */
export interface FetchPolicy {
  private: boolean;
  linkLocal: boolean;
}

export const userUrlPolicy = (o: OptionStore): FetchPolicy => ({
  private: o.bool(ALLOW_PRIVATE_OPTION),
  linkLocal: o.bool(ALLOW_LINK_LOCAL_OPTION),
});
export const adminUrlPolicy = (o: OptionStore): FetchPolicy => ({
  private: true,
  linkLocal: o.bool(ALLOW_LINK_LOCAL_OPTION),
});

export type AddressKind = 'public' | 'private' | 'link-local';

const subnets = (list: ReadonlyArray<readonly [string, number]>, type: 'ipv4' | 'ipv6') => {
  const b = new BlockList();
  for (const [net, bits] of list) b.addSubnet(net, bits, type);
  return b;
};

/** Link-local networks and the cloud metadata addresses (AWS, GCP, Azure 169.254.169.254; Alibaba; AWS v6). */
const linkLocal4 = subnets(
  [
    ['169.254.0.0', 16],
    ['100.100.100.200', 32],
  ],
  'ipv4',
);
const private4 = subnets(
  [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved and broadcast
  ],
  'ipv4',
);
const linkLocal6 = subnets(
  [
    ['fe80::', 10],
    ['fd00:ec2::254', 128],
  ],
  'ipv6',
);
const private6 = subnets(
  [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7], // unique local
    ['ff00::', 8], // multicast
    ['2001::', 32], // Teredo: the client's address is hidden in it
    ['100::', 64], // discard-only
  ],
  'ipv6',
);

/** The eight 16-bit groups of an IPv6 address (with a dotted IPv4 tail allowed), or null. */
function groups6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const p = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = text.includes('::') ? 8 - left.length - right.length : 0;
  const all = [...left, ...Array(fill).fill('0'), ...right].map((g) => Number.parseInt(g, 16));
  return all.length === 8 && all.every((n) => n >= 0 && n <= 0xffff) ? all : null;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if it carries one. */
function embeddedV4(g: number[]): string | undefined {
  const zeros = (from: number, to: number) => g.slice(from, to).every((n) => n === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6], g[7]); // ::ffff:a.b.c.d
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return v4(g[6], g[7]); // ::a.b.c.d (deprecated "compatible")
  if (g[0] === 0x64 && g[1] === 0xff9b && (zeros(2, 6) || g[2] === 1)) return v4(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return v4(g[1], g[2]); // 6to4
  return undefined;
}

/** What kind of address `ip` is; anything that does not parse counts as private. */
export function addressKind(ip: string): AddressKind {
  const family = isIP(ip);
  if (family === 4) {
    if (linkLocal4.check(ip, 'ipv4')) return 'link-local';
    return private4.check(ip, 'ipv4') ? 'private' : 'public';
  }
  if (family !== 6) return 'private';
  const g = groups6(ip);
  if (!g) return 'private';
  const inner = embeddedV4(g);
  if (inner) {
    const kind = addressKind(inner);
    // A transition address is never treated as public unless the IPv4 inside it is.
    return kind;
  }
  if (linkLocal6.check(ip, 'ipv6')) return 'link-local';
  return private6.check(ip, 'ipv6') ? 'private' : 'public';
}

/** True for loopback, private, link-local, unique-local, CGNAT, multicast and metadata addresses. */
export const isPrivateAddress = (ip: string) => addressKind(ip) !== 'public';

const allows = (policy: FetchPolicy, kind: AddressKind) =>
  kind === 'public' || (kind === 'private' ? policy.private : policy.linkLocal);

const refusal = (url: string, ip: string, kind: AddressKind) =>
  new ApiError(
    kind === 'link-local'
      ? `refused to fetch ${url}: ${ip} is a link-local or cloud metadata address (root can allow it with the option ${ALLOW_LINK_LOCAL_OPTION})`
      : `refused to fetch ${url}: ${ip} is a private, loopback or link-local address (root can allow private targets with the option ${ALLOW_PRIVATE_OPTION})`,
  );

/**
 * For a URL whose host is an address literal: why the policy refuses it, or undefined (names are judged when
 * they are resolved). Used when a channel is saved and, once per origin, by the relay.
 */
export function literalRefusal(raw: string, policy: FetchPolicy): string | undefined {
  let host: string;
  try {
    host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
  if (!isIP(host)) return undefined;
  const kind = addressKind(host);
  return allows(policy, kind) ? undefined : refusal(raw, host, kind).message;
}

type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) reject(err);
      else resolve(addresses.map((a) => a.address));
    });
  });
let resolver: Resolver = systemResolver;

/** Tests resolve names through their own table, so no test ever sends a query or a packet elsewhere. */
export function setResolverForTests(r: Resolver | null): void {
  resolver = r ?? systemResolver;
}

/** The first address of `addresses` the policy refuses, with its kind. */
function firstRefused(
  policy: FetchPolicy,
  addresses: string[],
): { ip: string; kind: AddressKind } | undefined {
  for (const ip of addresses) {
    const kind = addressKind(ip);
    if (!allows(policy, kind)) return { ip, kind };
  }
  return undefined;
}

/** Parses and checks a URL sent through a proxy: http(s), no credentials, no refused address literal. */
function assertProxiedUrl(raw: string, policy: FetchPolicy): URL {
  const url = parseFetchable(raw);
  const why = literalRefusal(raw, policy);
  if (why) throw new ApiError(why);
  return url;
}

function parseFetchable(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ApiError(`only http and https URLs can be fetched: ${raw}`);
  if (url.username || url.password) throw new ApiError('URLs with credentials cannot be fetched');
  return url;
}

/** Parses and checks a URL; resolves the host and refuses addresses the policy does not allow. */
export async function assertFetchableUrl(raw: string, policy: FetchPolicy): Promise<URL> {
  const url = parseFetchable(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolver(host);
    } catch {
      throw new ApiError(`cannot resolve host ${host}`);
    }
  }
  if (addresses.length === 0) throw new ApiError(`cannot resolve host ${host}`);
  const bad = firstRefused(policy, addresses);
  if (bad) throw refusal(url.origin, bad.ip, bad.kind);
  return url;
}

/**
 * A DNS lookup for an HTTP agent's connect step: the resolver's answer, refused when it holds an address the
 * policy does not allow (read on every new connection, so an option change applies at once).
 */
export function guardedLookup(policy: () => FetchPolicy): typeof dnsLookup {
  return ((host: string, options: any, callback: any) => {
    const cb = typeof options === 'function' ? options : callback;
    const opts = typeof options === 'function' ? {} : options;
    resolver(host).then(
      (list) => {
        const bad = firstRefused(policy(), list);
        if (bad)
          return cb(
            Object.assign(new Error(`${host} resolves to ${bad.ip}`), { code: 'ESSRF', kind: bad.kind }),
          );
        if (list.length === 0)
          return cb(Object.assign(new Error(`cannot resolve ${host}`), { code: 'ENOTFOUND' }));
        const entries = list.map((address) => ({ address, family: isIP(address) }));
        if (opts.all) return cb(null, entries);
        return cb(null, entries[0].address, entries[0].family);
      },
      (err) => cb(err),
    );
  }) as typeof dnsLookup;
}

const agents = new Map<string, Agent>();
function agentFor(policy: FetchPolicy): Agent {
  const key = `${policy.private}:${policy.linkLocal}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { timeout: 10_000, lookup: guardedLookup(() => policy) } });
    agents.set(key, agent);
  }
  return agent;
}

export interface GuardedFetchOptions extends Omit<RequestInit, 'dispatcher' | 'redirect'> {
  policy: FetchPolicy;
  /** Milliseconds for the whole request, body included; default 30 s. */
  timeoutMs?: number;
  /**
   * A channel proxy's dispatcher (infra/proxy.ts sideCallDispatcher, which checks the proxy): the proxy
   * resolves the target's name, so only an address literal is judged here.
   */
  proxy?: Dispatcher;
}

/** fetch() through the guard. Network failures become an ApiError (502, or 504 on timeout) saying what happened. */
export async function guardedFetch(raw: string, opts: GuardedFetchOptions): Promise<Response> {
  const url = opts.proxy ? assertProxiedUrl(raw, opts.policy) : await assertFetchableUrl(raw, opts.policy);
  const { policy, timeoutMs = 30_000, proxy, ...init } = opts;
  try {
    return await fetch(url, {
      ...init,
      redirect: 'error',
      dispatcher: proxy ?? agentFor(policy),
      signal: init.signal ?? AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw fetchFailure(url.origin, err);
  }
}

/** Why a fetch failed, in words, as the error the console shows. */
export function fetchFailure(origin: string, err: unknown): ApiError {
  const e = err as Error & { cause?: { code?: string; message?: string; kind?: AddressKind } };
  const cause = e.cause;
  if (cause?.code === 'ESSRF')
    return refusal(origin, cause.message?.split(' ').pop() ?? origin, cause.kind ?? 'private');
  if (e.name === 'TimeoutError' || cause?.code === 'UND_ERR_CONNECT_TIMEOUT')
    return new ApiError(`request to ${origin} timed out`, 504);
  const code = cause?.code ?? '';
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : code === 'ECONNRESET'
          ? 'the connection was reset'
          : (cause?.message ?? e.message);
  return new ApiError(`request to ${origin} failed: ${why}`, 502);
}
