import { buildConnector, type Dispatcher, ProxyAgent, Socks5ProxyAgent } from 'undici';
import { ApiError } from './envelope.ts';
import { type FetchPolicy, guardedLookup, literalRefusal } from './ssrf.ts';

const SCHEMES = new Set(['http:', 'https:', 'socks5:', 'socks5h:', 'socks:']);

/** A proxy URL the relay can use: http(s) (CONNECT tunnel) or SOCKS5, with an optional user:password. */
export function isProxyUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return SCHEMES.has(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Why the policy refuses the proxy's host when it is an address literal, or undefined. The host is read as an
 * http URL's host, so SOCKS URLs get the same IPv4 and IPv6 normalisation (`0xa9fea9fe`, `[::ffff:...]`).
 * Names are judged when they are resolved (proxyDispatcher's connect-time lookup).
 */
export function proxyRefusal(proxy: string, policy: FetchPolicy): string | undefined {
  let host: string;
  try {
    host = new URL(proxy).host;
  } catch {
    return undefined;
  }
  const why = literalRefusal(`http://${host}`, policy);
  return why && `the proxy ${why.replace(/^refused to fetch \S+: /, '')}`;
}

/**
 * Dispatchers for channels whose setting names a `proxy`: one per proxy URL, created on first use and kept,
 * so connections through the proxy are pooled like direct ones. The connection to the proxy itself goes
 * through the SSRF guard's lookup (names); literals are the caller's to check with proxyRefusal.
 */
export function createProxyDispatchers(policy: () => FetchPolicy) {
  const byUrl = new Map<string, Dispatcher>();
  const connect = buildConnector({ lookup: guardedLookup(policy) } as buildConnector.BuildOptions);
  return {
    /** The dispatcher for `url`; throws for a URL isProxyUrl refuses. */
    get(url: string): Dispatcher {
      let d = byUrl.get(url);
      if (!d) {
        if (!isProxyUrl(url)) throw new Error('invalid proxy URL');
        const u = new URL(url);
        if (u.protocol.startsWith('socks')) {
          u.protocol = 'socks5:';
          d = new Socks5ProxyAgent(u.toString(), { connect });
        } else d = new ProxyAgent({ uri: url, proxyTls: { lookup: guardedLookup(policy) } as any });
        byUrl.set(url, d);
      }
      return d;
    },
    async destroy(err: Error): Promise<void> {
      await Promise.all([...byUrl.values()].map((d) => d.destroy(err)));
      byUrl.clear();
    },
    async close(): Promise<void> {
      await Promise.all([...byUrl.values()].map((d) => d.close()));
      byUrl.clear();
    },
  };
}

const sidePools = new Map<string, ReturnType<typeof createProxyDispatchers>>();

/**
 * The dispatcher for a console or provider side call (model list, balance, token exchange) through a
 * channel's proxy, after the same checks the relay makes: an invalid or refused proxy is an ApiError.
 */
export function sideCallDispatcher(proxy: string, policy: FetchPolicy): Dispatcher {
  if (!isProxyUrl(proxy))
    throw new ApiError("the channel's proxy setting is not a valid http, https or socks5 URL");
  const refused = proxyRefusal(proxy, policy);
  if (refused) throw new ApiError(refused);
  const key = `${policy.private}:${policy.linkLocal}`;
  let pool = sidePools.get(key);
  if (!pool) {
    pool = createProxyDispatchers(() => policy);
    sidePools.set(key, pool);
  }
  return pool.get(proxy);
}
