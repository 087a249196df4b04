import { proxyRefusal } from '../../infra/proxy.ts';
import { type FetchPolicy, literalRefusal } from '../../infra/ssrf.ts';

/** A channel's `setting.proxy`, trimmed, from its setting JSON text ('' when none). */
export function proxyOf(setting: string | null | undefined): string {
  try {
    const proxy = JSON.parse(setting || '{}')?.proxy;
    return typeof proxy === 'string' ? proxy.trim() : '';
  } catch {
    return '';
  }
}

/**
 * Why the SSRF guard refuses where a channel sends its calls (its base URL or its proxy, when either is an
 * address literal), or undefined. The console's channel saves and the import both ask this.
 */
export function channelTargetRefusal(
  policy: FetchPolicy,
  baseUrl: string | undefined,
  setting: string | undefined,
): string | undefined {
  const base = baseUrl ? literalRefusal(baseUrl, policy) : undefined;
  if (base) return base;
  const proxy = proxyOf(setting);
  return proxy ? proxyRefusal(proxy, policy) : undefined;
}
