import type { CodecContext, HubMessage, HubPart, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

type Obj = Record<string, unknown>;

const textOf = (parts: HubPart[]) =>
  parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');

/**
 * One hub turn as a Coze additional message: text as content_type text; a user turn with images as
 * object_string (a JSON list of text and image items, images by URL: Coze takes inline bytes only by upload).
 * Tool calls and results have no place: the bot runs its own plugins.
 */
function messageOf(m: HubMessage, prefix: string): Obj | null {
  const text = [prefix, textOf(m.parts)].filter(Boolean).join('\n\n');
  const role = m.role === 'user' ? { role: 'user', type: 'question' } : { role: 'assistant', type: 'answer' };
  const images = m.role === 'user' ? m.parts.filter((p) => p.type === 'image') : [];
  if (images.length) {
    const items: Obj[] = text ? [{ type: 'text', text }] : [];
    for (const img of images) {
      if (!img.url)
        throw badRequest('Coze channels take images by http(s) URL only', 'invalid_value', 'messages');
      items.push({ type: 'image', file_url: img.url });
    }
    return { ...role, content: JSON.stringify(items), content_type: 'object_string' };
  }
  return text ? { ...role, content: text, content_type: 'text' } : null;
}

/**
 * A hub request as Coze's `POST /v3/chat` body: the (mapped) model is the bot id, the conversation goes as
 * additional_messages with the system prompt at the head of the first user message, and the chat is always
 * streamed (Coze answers a non-stream chat only by polling; a non-stream client gets the stream collected).
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Obj {
  let system = textOf(req.system);
  const messages: Obj[] = [];
  for (const m of req.messages) {
    const msg = messageOf(m, m.role === 'user' ? system : '');
    if (m.role === 'user' && msg) system = '';
    if (msg) messages.push(msg);
  }
  if (system) messages.unshift({ role: 'user', type: 'question', content: system, content_type: 'text' });
  if (!messages.length)
    throw badRequest('the conversation has no text to send to the bot', 'invalid_value', 'messages');
  return {
    bot_id: req.model,
    // Filled from the channel's setting `user` (or a default) by the adapter when the client named none.
    user_id: req.user ?? '',
    stream: true,
    additional_messages: messages,
  };
}
