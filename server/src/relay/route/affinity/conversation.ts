import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RelayInput } from '../../admit/relay-input.ts';
import { codecFor } from '../../formats/codecs.ts';

/** Session headers agent clients send (Codex sends `session_id`). */
const SESSION_HEADERS = ['session_id', 'x-session-id', 'conversation_id'];
/** How much of a first message names its conversation: enough to tell conversations apart, cheap to hash. */
const FIRST_MESSAGE_CHARS = 2048;

/** A request's conversation, and whether the request continues it (only then is its placement looked up). */
export interface Conversation {
  id: string;
  continues: boolean;
}

/**
 * What names the conversation a generation request belongs to, or undefined when nothing does: the client's
 * session header, the body's `prompt_cache_key` (Codex, OpenAI SDKs), Anthropic's `metadata.user_id` (Claude
 * Code puts its session in it); these continue a conversation from its first request. Else the conversation's
 * first message, which every later turn resends unchanged: a request with only that message starts a
 * conversation (its placement is remembered, not followed, so one-shot requests alike still spread), one with
 * more continues it.
 */
export function conversationOf(input: RelayInput, headers: IncomingHttpHeaders): Conversation | undefined {
  if (input.mode !== 'chat') return undefined;
  for (const h of SESSION_HEADERS) {
    const v = headers[h];
    if (typeof v === 'string' && v) return { id: `h:${v}`, continues: true };
  }
  const body = input.json;
  if (!body) return undefined;
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key)
    return { id: `p:${body.prompt_cache_key}`, continues: true };
  const user = codecFor(input.format).conversationKey?.(body);
  if (user) return { id: `u:${user}`, continues: true };
  const list = [body.messages, body.input, body.contents].find(Array.isArray) as unknown[] | undefined;
  const at = list ? firstMessageAt(list) : -1;
  if (!list || at < 0) return undefined;
  const text = JSON.stringify(list[at]) ?? '';
  return {
    id: `f:${createHash('sha256').update(text.slice(0, FIRST_MESSAGE_CHARS)).digest('base64url')}`,
    continues: at < list.length - 1,
  };
}

/** Where a conversation's first message is, past system and developer ones; -1 when there is none. */
function firstMessageAt(list: unknown[]): number {
  return list.findIndex((m) => {
    const role = (m as { role?: unknown } | null)?.role;
    return role !== 'system' && role !== 'developer';
  });
}
