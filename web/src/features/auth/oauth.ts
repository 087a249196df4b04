import { api } from '../../api/client.ts';
import type { Status } from '../../shared/status.ts';
import { readString } from '../../shared/storage.ts';
import { AFF_KEY } from './session.ts';

export type OAuthProvider = 'github' | 'oidc' | 'linuxdo';

/** Where to send the browser for a third-party sign-in (or bind); null when the provider is not configured. */
export async function oauthUrl(provider: OAuthProvider, status: Status): Promise<string | null> {
  const aff = readString(AFF_KEY) ?? undefined;
  const state = await api.get<string>('/api/oauth/state', { aff });
  const redirect = `${window.location.origin}/oauth/${provider}`;
  if (provider === 'github') {
    if (!status.github_client_id) return null;
    const q = new URLSearchParams({ client_id: status.github_client_id, state, scope: 'user:email' });
    return `https://github.com/login/oauth/authorize?${q}`;
  }
  if (provider === 'linuxdo') {
    if (!status.linuxdo_client_id) return null;
    const q = new URLSearchParams({ response_type: 'code', client_id: status.linuxdo_client_id, state });
    return `https://connect.linux.do/oauth2/authorize?${q}`;
  }
  if (!status.oidc_client_id || !status.oidc_authorization_endpoint) return null;
  const q = new URLSearchParams({
    client_id: status.oidc_client_id,
    redirect_uri: redirect,
    response_type: 'code',
    scope: 'openid profile email',
    state,
  });
  return `${status.oidc_authorization_endpoint}?${q}`;
}
