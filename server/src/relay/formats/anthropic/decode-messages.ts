import type { HubMessage, HubText } from '../hub.ts';
import { fieldError, isObj, required, tagOf } from './check.ts';
import { blockParts, type Conversation, textBlock } from './decode-content.ts';

/** `system`: a string or an array of text blocks (with their cache marks). */
export function decodeSystem(v: unknown): HubText[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v ? [{ type: 'text', text: v }] : [];
  if (!Array.isArray(v)) throw fieldError('system', 'Input should be a valid string or a valid list');
  return v.map((b, i) => {
    const { o } = tagOf(b, `system.${i}`, ['text']);
    return textBlock(o, `system.${i}`);
  });
}

/**
 * `messages` as hub turns. Anthropic's own rules are checked: user/assistant roles, content as a string or
 * blocks, tool_use only from the assistant and tool_result only from the user, each tool_result answering a
 * tool_use given earlier, no empty message except the final assistant one (a prefill).
 */
export function decodeMessages(raw: unknown): HubMessage[] {
  if (raw === undefined || raw === null) throw required('messages');
  if (!Array.isArray(raw)) throw fieldError('messages', 'Input should be a valid list');
  if (raw.length === 0) throw fieldError('messages', 'at least one message is required');
  const conv: Conversation = { calls: new Map() };
  return raw.map((m, i) => {
    const path = `messages.${i}`;
    if (!isObj(m)) throw fieldError(path, 'Input should be a valid dictionary');
    if (m.role === undefined || m.role === null) throw required(`${path}.role`);
    if (m.role !== 'user' && m.role !== 'assistant')
      throw fieldError(`${path}.role`, "Input should be 'user' or 'assistant'");
    const role = m.role;
    const c = m.content;
    if (c === undefined || c === null) throw required(`${path}.content`);
    const last = i === raw.length - 1;
    if (typeof c === 'string') {
      if (!c && !(last && role === 'assistant'))
        throw fieldError(
          path,
          'all messages must have non-empty content except for the optional final assistant message',
        );
      return { role, parts: c ? [{ type: 'text', text: c }] : [] };
    }
    if (!Array.isArray(c))
      throw fieldError(`${path}.content`, 'Input should be a valid string or a valid list');
    if (c.length === 0 && !(last && role === 'assistant'))
      throw fieldError(
        path,
        'all messages must have non-empty content except for the optional final assistant message',
      );
    return { role, parts: c.flatMap((b, j) => blockParts(b, `${path}.content.${j}`, role, conv)) };
  });
}
