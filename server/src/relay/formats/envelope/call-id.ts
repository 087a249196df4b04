/**
 * An envelope inside a tool-call id, for OpenAI chat clients: chat has no field for reasoning artifacts, and
 * the call id is the one thing a chat client echoes back (in the assistant turn and in the tool message).
 * `<id>__ge_<envelope as base64url>`, before any Gemini signature packCallId adds (`__gs_`).
 */
const MARK = '__ge_';
const GEMINI_MARK = '__gs_';

export const packEnvelopeId = (id: string, envelope: string) => {
  const at = id.indexOf(GEMINI_MARK);
  const packed = `${MARK}${Buffer.from(envelope, 'base64').toString('base64url')}`;
  return at < 0 ? `${id}${packed}` : `${id.slice(0, at)}${packed}${id.slice(at)}`;
};

/** The id without its envelope, and the envelope (base64) when it carried one. */
export function unpackEnvelopeId(packed: string): { id: string; envelope?: string } {
  const at = packed.indexOf(MARK);
  if (at < 0) return { id: packed };
  const end = packed.indexOf(GEMINI_MARK, at);
  const stop = end < 0 ? packed.length : end;
  const envelope = Buffer.from(packed.slice(at + MARK.length, stop), 'base64url').toString('base64');
  return { id: packed.slice(0, at) + packed.slice(stop), envelope };
}
