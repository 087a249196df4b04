/**
 * The channel setting `thinking_to_content`, for clients that only show `content`: the
 * reasoning deltas of an OpenAI stream become content wrapped in `<think>\n` ... `\n</think>\n`, and the
 * reasoning fields are removed. Returns a function that rewrites one parsed chunk into the chunks to send.
 */
export function thinkingToContent(): (chunk: any) => any[] {
  let opened = false;
  let closed = false;
  return (chunk) => {
    const choices = Array.isArray(chunk?.choices) ? chunk.choices : [];
    let closing: any = null;
    for (const c of choices) {
      const d = c?.delta;
      if (!d || typeof d !== 'object') continue;
      const reasoning =
        typeof d.reasoning_content === 'string'
          ? d.reasoning_content
          : typeof d.reasoning === 'string'
            ? d.reasoning
            : '';
      delete d.reasoning_content;
      delete d.reasoning;
      const content = typeof d.content === 'string' ? d.content : '';
      if (reasoning && !closed) {
        d.content = (opened ? '' : '<think>\n') + reasoning + (content ? `\n</think>\n${content}` : '');
        opened = true;
        if (content) closed = true;
      } else if (content && opened && !closed) {
        closed = true;
        closing = {
          ...chunk,
          choices: [{ index: c.index ?? 0, delta: { content: '\n</think>\n' }, finish_reason: null }],
        };
      }
    }
    return closing ? [closing, chunk] : [chunk];
  };
}
