import { type Dispatcher, ProxyAgent, Socks5ProxyAgent } from 'undici';

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
 * Dispatchers for channels whose setting names a `proxy`: one per proxy URL, created on first use and kept,
 * so connections through the proxy are pooled like direct ones.
 */
export function createProxyDispatchers() {
  const byUrl = new Map<string, Dispatcher>();
  return {
    /** The dispatcher for `url`; throws for a URL isProxyUrl refuses. */
    get(url: string): Dispatcher {
      let d = byUrl.get(url);
      if (!d) {
        if (!isProxyUrl(url)) throw new Error('invalid proxy URL');
        const u = new URL(url);
        if (u.protocol.startsWith('socks')) {
          u.protocol = 'socks5:';
          d = new Socks5ProxyAgent(u.toString());
        } else d = new ProxyAgent(url);
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
