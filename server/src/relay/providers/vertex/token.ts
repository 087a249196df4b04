import { sign } from 'node:crypto';
import type { OptionStore } from '../../../modules/options/store.ts';
import { scrub } from '../../relay-error.ts';
import { providerHttp } from '../http.ts';
import { tokenExchangeFailure } from '../token-exchange.ts';
import type { ServiceAccount } from './key.ts';

export const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before Google says it expires. */
const MARGIN_MS = 5 * 60_000;

interface Token {
  value: string;
  renewAt: number;
}

/** Access tokens per service account (its token endpoint, email and private key), and exchanges in flight. */
const tokens = new Map<string, Token>();
const pending = new Map<string, Promise<Token>>();

/**
 * An OAuth access token for the service account: the cached one, or one exchanged at its token_uri for a
 * JWT it signs (Google's two-legged service-account flow). Concurrent calls share one exchange; a failed
 * exchange is not remembered.
 */
export async function accessToken(sa: ServiceAccount, options: OptionStore, proxy = ''): Promise<string> {
  const { id } = sa;
  const hit = tokens.get(id);
  if (hit && hit.renewAt > Date.now()) return hit.value;
  let inFlight = pending.get(id);
  if (!inFlight) {
    inFlight = exchange(sa, options, proxy)
      .then((t) => {
        tokens.set(id, t);
        return t;
      })
      .finally(() => pending.delete(id));
    pending.set(id, inFlight);
  }
  return (await inFlight).value;
}

/** The signed assertion: RS256 over `{iss, scope, aud, iat, exp}`, valid for an hour. */
export function assertionFor(sa: ServiceAccount, nowSec = Math.floor(Date.now() / 1000)): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const header = part({ alg: 'RS256', typ: 'JWT', ...(sa.keyId ? { kid: sa.keyId } : {}) });
  const claims = part({
    iss: sa.clientEmail,
    scope: SCOPE,
    aud: sa.tokenUri,
    iat: nowSec,
    exp: nowSec + 3600,
  });
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${claims}`), sa.privateKey).toString(
    'base64url',
  );
  return `${header}.${claims}.${signature}`;
}

async function exchange(sa: ServiceAccount, options: OptionStore, proxy: string): Promise<Token> {
  const assertion = assertionFor(sa);
  const secrets = [assertion, assertion.slice(assertion.lastIndexOf('.') + 1)];
  let answer: { access_token?: unknown; expires_in?: unknown };
  try {
    answer = (await providerHttp(
      options,
      secrets,
      proxy,
    )(sa.tokenUri, {
      method: 'POST',
      form: true,
      body: { grant_type: GRANT, assertion },
    })) as typeof answer;
  } catch (err) {
    const message = scrub(String((err as Error)?.message ?? err), secrets);
    // Google answers 400 invalid_grant (bad signature, unknown or disabled key) or 401 invalid_client.
    throw failed(/^answered 40[013]\b/.test(message), message);
  }
  if (typeof answer?.access_token !== 'string' || !answer.access_token)
    throw failed(false, 'the token endpoint answered without an access_token');
  const life =
    (typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600) * 1000;
  return { value: answer.access_token, renewAt: Date.now() + Math.max(life / 2, life - MARGIN_MS) };
}

const failed = (refused: boolean, detail: string) => tokenExchangeFailure('Vertex AI', refused, detail);
