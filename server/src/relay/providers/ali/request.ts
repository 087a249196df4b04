import { isObj, type Obj } from '../../formats/chat/check.ts';
import { encodeRequest as chatRequest } from '../../formats/chat/request.ts';
import type { CodecContext, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

/** Qwen's vision and audio models answer at DashScope's multimodal endpoint, with content as part lists. */
export const isMultimodal = (model: string) => /(^|[-.])(vl|audio)([-.]|$)|^qvq/i.test(model);

/** Chat parameters DashScope takes under the same names inside `parameters`. */
const SAME_NAMES = [
  'temperature',
  'top_p',
  'max_tokens',
  'seed',
  'stop',
  'presence_penalty',
  'tools',
  'parallel_tool_calls',
  'response_format',
] as const;

/**
 * A hub request as DashScope's generation body: `{model, input:{messages}, parameters}`. The messages and
 * tools are OpenAI chat's (DashScope reads the same roles, tool_calls and tool_call_id), built by the chat
 * encoder and then reshaped: answers in message format, streams incremental, thinking as enable_thinking.
 */
export function encodeRequest(req: HubRequest, ctx: CodecContext): Record<string, unknown> {
  const chat = chatRequest({ ...req, stream: false }, ctx);
  const multimodal = isMultimodal(req.model);
  const messages = (chat.messages as Obj[]).map((m) => aliMessage(m, multimodal, req.model));
  const parameters: Obj = { result_format: 'message' };
  for (const k of SAME_NAMES) if (chat[k] !== undefined) parameters[k] = chat[k];
  // DashScope knows auto, none and a named function; `required` has no equivalent and is left to the model.
  if (chat.tool_choice !== undefined && chat.tool_choice !== 'required')
    parameters.tool_choice = chat.tool_choice;
  if (req.topK !== undefined) parameters.top_k = req.topK;
  if (req.thinking) {
    parameters.enable_thinking = req.thinking.enabled;
    if (req.thinking.enabled && req.thinking.budgetTokens)
      parameters.thinking_budget = req.thinking.budgetTokens;
  }
  if (req.stream) parameters.incremental_output = true;
  return { model: req.model, input: { messages }, parameters };
}

/**
 * One chat message as DashScope's. The text endpoint takes string content only; the multimodal one takes a
 * list of `{text}` / `{image}` parts (an image by http(s) URL or as a data: URL).
 */
function aliMessage(m: Obj, multimodal: boolean, model: string): Obj {
  const out: Obj = { ...m };
  if (!multimodal) {
    if (Array.isArray(m.content)) {
      if (!m.content.every((p) => isObj(p) && p.type === 'text'))
        throw badRequest(
          `model ${model} takes text only; send images to a Qwen vision (-vl) model`,
          'invalid_value',
          'messages',
        );
      out.content = m.content.map((p) => (p as Obj).text).join('\n');
    } else if (m.content === null || m.content === undefined) out.content = '';
    return out;
  }
  const parts = Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content ?? '' }];
  out.content = parts.map((p) => {
    if (isObj(p) && p.type === 'text') return { text: p.text };
    if (isObj(p) && p.type === 'image_url' && isObj(p.image_url)) return { image: p.image_url.url };
    throw badRequest(`model ${model} takes text and images only`, 'invalid_value', 'messages');
  });
  return out;
}
