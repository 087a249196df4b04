import type { OptionStore } from '../../../modules/options/store.ts';
import { scrub } from '../../relay-error.ts';
import { providerHttp } from '../http.ts';
import { tokenExchangeFailure } from '../token-exchange.ts';
import type { BaiduKey } from './key.ts';

interface Token {
  value: string;
  /** When to stop using it (ms): a tenth of its life, at most an hour, before it expires. */
  renewAt: number;
}

/** Access tokens per token endpoint and credential, and the exchanges in flight (shared by concurrent calls). */
const tokens = new Map<string, Token>();
const pending = new Map<string, Promise<Token>>();

const idOf = (base: string, key: BaiduKey) => `${base}\n${key.apiKey}\n${key.secretKey}`;

/**
 * An access token for the key: the cached one, or one exchanged at `{base}/oauth/2.0/token`. `fresh` says it was
 * just exchanged (a refusal of a fresh token is not worth another exchange).
 */
export async function accessToken(
  base: string,
  key: BaiduKey,
  options: OptionStore,
  proxy = '',
): Promise<{ token: string; fresh: boolean }> {
  const id = idOf(base, key);
  const hit = tokens.get(id);
  if (hit && hit.renewAt > Date.now()) return { token: hit.value, fresh: false };
  let inFlight = pending.get(id);
  if (!inFlight) {
    inFlight = exchange(base, key, options, proxy)
      .then((t) => {
        tokens.set(id, t);
        return t;
      })
      .finally(() => pending.delete(id));
    pending.set(id, inFlight);
  }
  return { token: (await inFlight).value, fresh: true };
}

/** Forgets a token Wenxin refused (unless another call has replaced it already). */
export function dropToken(base: string, key: BaiduKey, token: string): void {
  const id = idOf(base, key);
  if (tokens.get(id)?.value === token) tokens.delete(id);
}

async function exchange(base: string, key: BaiduKey, options: OptionStore, proxy: string): Promise<Token> {
  const secrets = [key.apiKey, key.secretKey].flatMap((s) => [s, encodeURIComponent(s)]);
  const query = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: key.apiKey,
    client_secret: key.secretKey,
  });
  let answer: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
  try {
    answer = (await providerHttp(
      options,
      secrets,
      proxy,
    )(`${base}/oauth/2.0/token?${query}`, {
      method: 'POST',
    })) as typeof answer;
  } catch (err) {
    // The credentials travel in the URL, which a network error may quote.
    const message = scrub(String((err as Error)?.message ?? err), secrets);
    throw failed(/^answered 40[01]\b/.test(message), message);
  }
  if (typeof answer?.access_token !== 'string' || !answer.access_token) {
    const detail = [answer?.error_description, answer?.error].find((v) => typeof v === 'string' && v);
    throw failed(
      typeof answer?.error === 'string',
      scrub(String(detail ?? 'no access_token in the answer'), secrets),
    );
  }
  const life =
    (typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 86_400) * 1000;
  return { value: answer.access_token, renewAt: Date.now() + life - Math.min(life / 10, 3_600_000) };
}

const failed = (refused: boolean, detail: string) => tokenExchangeFailure('Wenxin', refused, detail);
