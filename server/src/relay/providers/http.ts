import { sideCallDispatcher } from '../../infra/proxy.ts';
import { adminUrlPolicy, guardedFetch } from '../../infra/ssrf.ts';
import type { OptionStore } from '../../modules/options/store.ts';
import { scrub } from '../relay-error.ts';
import type { ProviderHttp } from './types.ts';

/**
 * JSON over HTTP for providers' side calls (token exchanges, model lists, balances): through the SSRF guard
 * with the administrator's policy and the channel's proxy (checked the same way), 20 s at most, the given
 * secrets scrubbed from any error it throws.
 */
export function providerHttp(options: OptionStore, secrets: string[], proxy = ''): ProviderHttp {
  return async (url, init = {}) => {
    const policy = adminUrlPolicy(options);
    const body =
      init.body === undefined
        ? undefined
        : init.form
          ? new URLSearchParams(init.body as Record<string, string>).toString()
          : JSON.stringify(init.body);
    const res = await guardedFetch(url, {
      policy,
      proxy: proxy ? sideCallDispatcher(proxy, policy) : undefined,
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers: {
        accept: 'application/json',
        ...(body === undefined
          ? {}
          : { 'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json' }),
        ...init.headers,
      },
      body,
      timeoutMs: 20_000,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok || json === undefined) {
      const e = (json as { error?: unknown; message?: unknown; error_description?: unknown }) ?? {};
      const detail =
        typeof e.error_description === 'string'
          ? e.error_description
          : typeof e.message === 'string'
            ? e.message
            : typeof e.error === 'string'
              ? e.error
              : typeof (e.error as { message?: unknown })?.message === 'string'
                ? (e.error as { message: string }).message
                : text.slice(0, 200);
      throw new Error(
        scrub(res.ok ? `the answer is not JSON: ${detail}` : `answered ${res.status}: ${detail}`, secrets),
      );
    }
    return json;
  };
}
