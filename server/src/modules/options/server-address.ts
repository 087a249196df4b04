import { ApiError } from '../../infra/envelope.ts';
import type { OptionStore } from './store.ts';

/**
 * The gateway's public address (option ServerAddress), the only base for links that leave the request:
 * links in e-mails, OAuth redirect URIs, payment notify URLs. Never the request's Host or X-Forwarded-Host,
 * which a caller chooses. Setup fills it from the address the root administrator used.
 */
export function serverAddress(options: OptionStore, purpose: string): string {
  const address = options.get('ServerAddress').trim().replace(/\/+$/, '');
  if (!address)
    throw new ApiError(
      `${purpose} is unavailable: the administrator has not set the server address (ServerAddress in the system settings)`,
      503,
    );
  return address;
}
