import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { ApiError } from './envelope.ts';

/**
 * Guard for URLs the server fetches on someone's behalf (upstream model lists, balances, channel tests):
 * the host must resolve only to public addresses, unless the admin allows private targets with the
 * option `fetch_setting.allow_private_ip`. The check runs before the request (clear message) and again
 * at connect time inside the HTTP agent, so a DNS answer that changes between the two is caught too.
 * Redirects are refused: a public URL could otherwise bounce to an internal one.
 */
export const ALLOW_PRIVATE_OPTION = 'fetch_setting.allow_private_ip';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** True for loopback, private, link-local, unique-local, CGNAT, multicast and metadata addresses. */
export function isPrivateAddress(ip: string): boolean {
  const kind = isIP(ip);
  if (kind === 0) return true;
  return blocked.check(ip, kind === 4 ? 'ipv4' : 'ipv6');
}

const refusal = (url: string, ip: string) =>
  new ApiError(
    `refused to fetch ${url}: ${ip} is a private, loopback or link-local address (an administrator can allow private targets with the option ${ALLOW_PRIVATE_OPTION})`,
  );

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) reject(err);
      else resolve(addresses.map((a) => a.address));
    });
  });
}

/** Parses and checks a URL; resolves the host and refuses private targets unless allowed. */
export async function assertFetchableUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(`not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ApiError(`only http and https URLs can be fetched: ${raw}`);
  if (url.username || url.password) throw new ApiError('URLs with credentials cannot be fetched');
  if (allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolveAll(host);
    } catch {
      throw new ApiError(`cannot resolve host ${host}`);
    }
  }
  const bad = addresses.find(isPrivateAddress);
  if (bad || addresses.length === 0) throw refusal(url.origin, bad ?? host);
  return url;
}

/** DNS lookup for the agent: same answer as the system's, minus private addresses. */
const guardedLookup: typeof dnsLookup = ((host: string, options: any, callback: any) => {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'function' ? {} : options;
  dnsLookup(host, { ...opts, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return cb(err);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad)
      return cb(
        Object.assign(new Error(`${host} resolves to private address ${bad.address}`), { code: 'ESSRF' }),
      );
    if (opts.all) return cb(null, addresses);
    return cb(null, addresses[0].address, addresses[0].family);
  });
}) as typeof dnsLookup;

/** Agents are made once: the public one resolves names through the guard, the other as the system does. */
const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({
      connect: allowPrivate ? { timeout: 10_000 } : { timeout: 10_000, lookup: guardedLookup },
    });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

export interface GuardedFetchOptions extends Omit<RequestInit, 'dispatcher' | 'redirect'> {
  allowPrivate: boolean;
  /** Milliseconds for the whole request, body included; default 30 s. */
  timeoutMs?: number;
}

/** fetch() through the guard. Network failures become an Error with a readable message. */
export async function guardedFetch(raw: string, opts: GuardedFetchOptions): Promise<Response> {
  const url = await assertFetchableUrl(raw, opts.allowPrivate);
  const { allowPrivate, timeoutMs = 30_000, ...init } = opts;
  try {
    return await fetch(url, {
      ...init,
      redirect: 'error',
      dispatcher: agentFor(allowPrivate),
      signal: init.signal ?? AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === 'ESSRF') throw refusal(url.origin, cause.message?.split(' ').pop() ?? url.hostname);
    const why = cause?.message ?? (err as Error).message;
    throw new Error(`request to ${url.origin} failed: ${why}`);
  }
}
