import type { HubRequest } from '../formats/hub.ts';

/** Rewrites one prompt text; returns it unchanged to leave it. */
export type TextEdit = (text: string) => string;

/**
 * Calls `edit` on every prompt text of an OpenAI, Anthropic, Gemini or Responses request body and writes back
 * what it returns: the places admit/checks/sensitive.ts reads (messages, system, instructions, input items, Gemini
 * contents and systemInstruction, prompt, query, documents). Images and other binary parts are left alone.
 */
export function editPromptText(body: Record<string, unknown>, edit: TextEdit): void {
  for (const key of ['prompt', 'input', 'instructions', 'system', 'query', 'documents'])
    if (body[key] !== undefined) body[key] = editContent(body[key], edit);
  if (Array.isArray(body.messages))
    for (const m of body.messages)
      if (m && typeof m === 'object' && 'content' in m) m.content = editContent(m.content, edit);
  if (Array.isArray(body.contents))
    for (const c of body.contents) if (c && typeof c === 'object' && 'parts' in c) editContent(c.parts, edit);
  const si = body.systemInstruction;
  if (si && typeof si === 'object' && 'parts' in si) editContent((si as { parts: unknown }).parts, edit);
}

/** A content value: a string, a list of strings, or a list of parts with `text` or nested `content`. */
function editContent(value: unknown, edit: TextEdit, depth = 0): unknown {
  if (typeof value === 'string') return edit(value);
  if (!Array.isArray(value) || depth > 16) return value;
  for (let i = 0; i < value.length; i++) {
    const part = value[i];
    if (typeof part === 'string') value[i] = edit(part);
    else if (part && typeof part === 'object' && !Array.isArray(part)) {
      if (typeof part.text === 'string') part.text = edit(part.text);
      else if (part.content !== undefined) part.content = editContent(part.content, edit, depth + 1);
    }
  }
  return value;
}

/** The same for a request already decoded into the hub: system texts, the text parts of every turn and
 * of its tool results. */
export function editHubText(hub: HubRequest, edit: TextEdit): void {
  for (const s of hub.system) s.text = edit(s.text);
  for (const m of hub.messages)
    for (const p of m.parts) {
      if (p.type === 'text') p.text = edit(p.text);
      else if (p.type === 'tool_result')
        for (const c of p.content) if (c.type === 'text') c.text = edit(c.text);
    }
}
