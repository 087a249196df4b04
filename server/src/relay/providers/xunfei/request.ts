import { CUSTOM_TOOL_PARAMETERS } from '../../formats/chat/decode-tools.ts';
import type { CodecContext, HubMessage, HubPart, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

type Msg = { role: 'system' | 'user' | 'assistant'; content: string };

/** Spark's top_k range. */
const TOP_K = [1, 6] as const;
/** Spark's longest `uid`. */
const UID_MAX = 32;

/**
 * A hub request as a Spark WebSocket request: `{header, parameter:{chat}, payload:{message:{text}}}` with the
 * tools as `payload.functions.text`. `header.app_id` and `parameter.chat.domain` are the channel's (the
 * adapter's prepareBody fills them). Spark's turns are plain texts: a tool call made earlier is written as
 * its JSON in the assistant's turn and a tool result as the user's text.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  const text: Msg[] = [];
  const system = req.system.map((p) => p.text).join('\n');
  if (system) text.push({ role: 'system', content: system });
  for (const m of req.messages) pushTurn(text, m);
  const chat: Record<string, unknown> = {};
  if (req.temperature !== undefined) chat.temperature = req.temperature;
  if (req.maxTokens !== undefined) chat.max_tokens = req.maxTokens;
  if (req.topK !== undefined) chat.top_k = Math.min(TOP_K[1], Math.max(TOP_K[0], Math.round(req.topK)));
  const payload: Record<string, unknown> = { message: { text } };
  if (req.tools.length && req.toolChoice?.type !== 'none')
    payload.functions = {
      text: req.tools.map((t) => ({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.custom ? CUSTOM_TOOL_PARAMETERS : t.parameters,
      })),
    };
  return {
    header: req.user ? { uid: req.user.slice(0, UID_MAX) } : {},
    parameter: { chat },
    payload,
  };
}

/** One hub turn as Spark texts; consecutive texts of one role join (Spark wants the roles to alternate). */
function pushTurn(out: Msg[], m: HubMessage): void {
  const push = (role: Msg['role'], content: string) => {
    if (!content) return;
    const last = out.at(-1);
    if (last && last.role === role && role !== 'system') last.content = `${last.content}\n${content}`;
    else out.push({ role, content });
  };
  if (m.role === 'assistant') {
    const texts = [textOf(m.parts)];
    for (const p of m.parts)
      if (p.type === 'tool_call')
        texts.push(JSON.stringify({ function_call: { name: p.name, arguments: p.args || '{}' } }));
    push('assistant', texts.filter(Boolean).join('\n'));
    return;
  }
  for (const p of m.parts) if (p.type === 'tool_result') push('user', textOf(p.content));
  push('user', textOf(m.parts));
}

/** The text of some parts; Spark's chat takes no images or files. */
function textOf(parts: HubPart[]): string {
  const texts: string[] = [];
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') texts.push(p.text);
    else if (p.type === 'image' || p.type === 'file')
      throw badRequest('iFlytek Spark channels take text only', 'invalid_value', 'messages');
  }
  return texts.join('\n');
}
