import type { HubMessage, HubPart, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

const textOf = (parts: HubPart[]): string =>
  parts
    .flatMap((p) =>
      p.type === 'text' ? [p.text] : p.type === 'tool_result' ? [textOf(p.content as HubPart[])] : [],
    )
    .filter(Boolean)
    .join('\n');

/**
 * The query a Dify app gets for a conversation. Dify keeps history only in its own conversations, and the
 * gateway starts a new one per request, so: the last user message alone when there is nothing before it;
 * otherwise the system prompt first, then every turn labelled `User:` / `Assistant:` (the last user message
 * included), as one text.
 */
export function queryOf(req: HubRequest): string {
  const system = textOf(req.system);
  const turns = req.messages
    .map((m: HubMessage) => ({ role: m.role, text: textOf(m.parts) }))
    .filter((t) => t.text);
  const last = turns.at(-1);
  if (last?.role !== 'user')
    throw badRequest(
      'the conversation must end with a user message that has text',
      'invalid_value',
      'messages',
    );
  if (!system && turns.length === 1) return last.text;
  const lines = turns.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text}`);
  return [system, lines.join('\n\n')].filter(Boolean).join('\n\n');
}

/** Images of the last user message, as Dify's remote-URL files (Dify takes inline bytes only by upload). */
export function filesOf(req: HubRequest): Record<string, unknown>[] {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  return (last?.parts ?? []).flatMap((p) => {
    if (p.type !== 'image') return [];
    if (!p.url)
      throw badRequest('Dify channels take images by http(s) URL only', 'invalid_value', 'messages');
    return [{ type: 'image', transfer_method: 'remote_url', url: p.url }];
  });
}
