import { RelayError } from '../relay-error.ts';

/**
 * A failed access-token exchange (Vertex AI's service-account JWT, Wenxin's client credentials). The API caller
 * reads only that the exchange failed and whether the credentials were refused; the endpoint's answer, its
 * address and option names stay in `detail` (server log, channel status, console channel test). Refused
 * credentials are the channel's fault (401); anything else may pass on another channel (502).
 */
export function tokenExchangeFailure(provider: string, refused: boolean, detail: string): RelayError {
  const err = new RelayError(
    refused ? 401 : 502,
    refused
      ? `the ${provider} access token exchange failed: the token endpoint refused the channel's credentials`
      : `the ${provider} access token exchange failed`,
    'upstream_error',
    'upstream_auth_failed',
    null,
    false,
  );
  err.detail = `the ${provider} access token exchange failed: ${detail}`;
  return err;
}
