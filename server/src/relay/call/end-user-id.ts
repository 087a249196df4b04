import { createHmac } from 'node:crypto';
import type { AppContext } from '../../context.ts';

/**
 * The end-user id a converted call sends another vendor (OpenAI `user`, Anthropic `metadata.user_id`). A client's
 * id is not the gateway's to pass on: Claude Code's `metadata.user_id` is a JSON string with its device and
 * session ids. The option `global.converted_user_id` says what goes instead: `none` (the default) sends
 * nothing; `hash` sends a stable HMAC-SHA256 of the client's id under the gateway's secret (64 hex characters),
 * so an upstream can tell users apart for abuse checks without learning who or what device they are.
 * A call relayed in the client's own format keeps its body as sent.
 */
export const CONVERTED_USER_OPTION = 'global.converted_user_id';

export type EndUserPolicy = (clientUser: string | undefined) => string | undefined;

export function convertedUserPolicy(ctx: AppContext): EndUserPolicy {
  return (clientUser) => {
    if (!clientUser || ctx.options.get(CONVERTED_USER_OPTION) !== 'hash') return undefined;
    return createHmac('sha256', ctx.config.cryptoSecret).update(`end-user\n${clientUser}`).digest('hex');
  };
}

/** The policy where no option is read: send nothing. */
export const dropEndUser: EndUserPolicy = () => undefined;
