/**
 * The client's JSON text with the top-level fields the gateway added written after its own (OpenAI's usage
 * request on a stream, Gemini's safety settings), so the client's part, its prompts above all, is not escaped
 * again by JSON.stringify. Undefined when the gateway changed or removed one of the client's fields: the body
 * is then serialised whole.
 */
export function withAddedFields(
  raw: string,
  sent: Record<string, unknown>,
  edited: Record<string, unknown>,
): string | undefined {
  let added = '';
  for (const key of Object.keys(edited)) {
    const value = edited[key];
    if (Object.hasOwn(sent, key)) {
      if (sent[key] !== value) return undefined;
    } else if (value !== undefined) {
      added += `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
    }
  }
  for (const key of Object.keys(sent)) if (!Object.hasOwn(edited, key)) return undefined;
  if (added === '') return raw;
  // The text is an object's: its last `}` closes it (only whitespace may follow).
  const end = raw.lastIndexOf('}');
  if (end < 0) return undefined;
  const empty = Object.keys(sent).length === 0;
  return raw.slice(0, end) + (empty ? added.slice(1) : added) + raw.slice(end);
}
