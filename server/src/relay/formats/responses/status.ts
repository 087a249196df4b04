import { isObj } from '../chat/check.ts';
import type { HubStop } from '../hub.ts';

/**
 * A Response's status and incomplete_details in the hub's words: an incomplete answer stopped at the token
 * limit or at the content filter; a completed one with calls stopped for them.
 */
export function hubStop(status: unknown, incomplete: unknown, hasToolCalls: boolean): HubStop {
  if (status === 'incomplete') {
    const reason = isObj(incomplete) ? incomplete.reason : undefined;
    return reason === 'content_filter' ? 'content_filter' : 'max_tokens';
  }
  return hasToolCalls ? 'tool_calls' : 'end';
}

/** The hub's stop as a Response's status and incomplete_details. */
export function responseStatus(
  stop: HubStop,
  promptBlocked?: string,
): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (promptBlocked || stop === 'content_filter' || stop === 'refusal')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  if (stop === 'max_tokens')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  return { status: 'completed', incomplete_details: null };
}
