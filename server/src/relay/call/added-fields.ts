const CLOSE_BRACE = 0x7d;

/**
 * The client's JSON (its text or its bytes) with the top-level fields the gateway added written after its own
 * (OpenAI's usage request on a stream, Gemini's safety settings), so the client's part, its prompts above all,
 * is not escaped again by JSON.stringify. Undefined when the gateway changed or removed one of the client's
 * fields: the body is then serialised whole.
 */
export function withAddedFields(
  raw: string | Buffer,
  sent: Record<string, unknown>,
  edited: Record<string, unknown>,
): string | Buffer | undefined {
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
  // The JSON is an object's: its last `}` closes it (only whitespace may follow).
  const end = typeof raw === 'string' ? raw.lastIndexOf('}') : raw.lastIndexOf(CLOSE_BRACE);
  if (end < 0) return undefined;
  const insert = Object.keys(sent).length === 0 ? added.slice(1) : added;
  if (typeof raw === 'string') return raw.slice(0, end) + insert + raw.slice(end);
  return Buffer.concat([raw.subarray(0, end), Buffer.from(insert), raw.subarray(end)]);
}
