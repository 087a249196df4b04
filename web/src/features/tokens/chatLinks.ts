import type { Status } from '../../shared/status.ts';

export interface ChatLink {
  name: string;
  template: string;
}

/**
 * The admin's chat links (`chats` in the status object: a list of `{name: url template}`); undefined when
 * the setting is not a list of such objects.
 */
export function chatLinks(status: Status): ChatLink[] | undefined {
  const chats = status.chats;
  if (chats === undefined || chats === null) return [];
  if (!Array.isArray(chats)) return undefined;
  const out: ChatLink[] = [];
  for (const item of chats) {
    if (!item || typeof item !== 'object') return undefined;
    for (const [name, template] of Object.entries(item)) {
      if (typeof template !== 'string') return undefined;
      out.push({ name, template });
    }
  }
  return out;
}

/** Spec 002: {address} becomes the url-encoded server address, {key} the token's `sk-` key. */
export function chatUrl(template: string, serverAddress: string, key: string): string {
  return template.replaceAll('{address}', encodeURIComponent(serverAddress)).replaceAll('{key}', `sk-${key}`);
}
