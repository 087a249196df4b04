import { dataUrl } from '../../formats/common.ts';
import type { HubImage, HubMessage, HubPart, HubText } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

type Obj = Record<string, unknown>;

const texts = (parts: HubPart[]) =>
  parts
    .filter((p): p is HubText => p.type === 'text')
    .map((p) => p.text)
    .join('\n');

const image = (img: HubImage) => ({
  type: 'image_url',
  image_url: { url: img.url ?? dataUrl(img), ...(img.detail ? { detail: img.detail } : {}) },
});

/**
 * Hub turns as Cohere Chat v2 messages: one system message, user messages with text and image_url parts,
 * tool results as `tool` messages (text blocks) before the user's own content, assistant messages with text
 * and tool_calls. Thinking before tool calls goes back as the turn's tool_plan (Cohere's name for it); other
 * thinking, cache marks and other formats' signatures have no place in Cohere's messages.
 */
export function encodeMessages(system: HubText[], messages: HubMessage[]): Obj[] {
  const out: Obj[] = [];
  const sys = texts(system);
  if (sys) out.push({ role: 'system', content: sys });
  for (const m of messages) {
    if (m.role === 'user') out.push(...userMessages(m.parts));
    else {
      const msg = assistantMessage(m.parts);
      if (msg) out.push(msg);
    }
  }
  return out;
}

function userMessages(parts: HubPart[]): Obj[] {
  const out: Obj[] = [];
  const content: Obj[] = [];
  for (const p of parts)
    if (p.type === 'tool_result') {
      out.push({
        role: 'tool',
        tool_call_id: p.callId,
        content: [{ type: 'text', text: texts(p.content) || (p.isError ? 'error' : '') }],
      });
      // Tool messages take text and documents only: a result's images go with the user's content.
      for (const c of p.content) if (c.type === 'image') content.push(image(c));
    }
  for (const p of parts) {
    if (p.type === 'text') content.push({ type: 'text', text: p.text });
    else if (p.type === 'image') content.push(image(p));
    else if (p.type === 'file')
      throw badRequest('Cohere channels take text and images only, not files', 'invalid_value', 'messages');
  }
  if (content.length === 0) return out;
  const textOnly = content.every((c) => c.type === 'text');
  out.push({ role: 'user', content: textOnly ? content.map((c) => c.text).join('\n') : content });
  return out;
}

function assistantMessage(parts: HubPart[]): Obj | null {
  const calls = parts.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: p.args.trim() || '{}' } }]
      : [],
  );
  const text = texts(parts);
  if (!text && !calls.length) return null;
  const msg: Obj = { role: 'assistant' };
  if (text) msg.content = text;
  if (calls.length) {
    msg.tool_calls = calls;
    const plan = parts.flatMap((p) => (p.type === 'thinking' && p.text ? [p.text] : [])).join('\n');
    if (plan) msg.tool_plan = plan;
  }
  return msg;
}
