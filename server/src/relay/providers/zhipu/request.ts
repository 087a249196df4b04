import type { CodecContext, HubPart, HubRequest } from '../../formats/hub.ts';
import { badRequest } from '../../relay-error.ts';

/** The v3 API's ranges: temperature (0, 1], top_p (0, 1). */
const MIN = 0.01;
const MAX_TOP_P = 0.99;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * A hub request as a v3 model-api body: `prompt` of alternating user and assistant turns (text only; the v3
 * API has no system role, so the system prompt opens the first user turn), `incremental` deltas for a stream.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  if (req.tools.length)
    throw badRequest(
      'Zhipu ChatGLM (v3 API) channels have no tool calling; use a Zhipu GLM-4V (v4 API) channel for tools',
      'invalid_value',
      'tools',
    );
  const prompt: Array<{ role: string; content: string }> = [];
  let system = req.system.map((p) => p.text).join('\n');
  for (const m of req.messages) {
    let content = textOf(m.parts);
    if (m.role === 'user' && system) {
      content = content ? `${system}\n\n${content}` : system;
      system = '';
    }
    if (!content) continue;
    const last = prompt.at(-1);
    if (last?.role === m.role) last.content += `\n${content}`;
    else prompt.push({ role: m.role, content });
  }
  if (system) prompt.unshift({ role: 'user', content: system });
  const body: Record<string, unknown> = { prompt };
  if (req.temperature !== undefined) body.temperature = clamp(req.temperature, MIN, 1);
  if (req.topP !== undefined) body.top_p = clamp(req.topP, MIN, MAX_TOP_P);
  if (req.stream) body.incremental = true;
  return body;
}

function textOf(parts: HubPart[]): string {
  const texts: string[] = [];
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') texts.push(p.text);
    else if (p.type === 'image' || p.type === 'file' || p.type === 'tool_result' || p.type === 'tool_call')
      throw badRequest(
        'Zhipu ChatGLM (v3 API) channels take text only (no images, files or tool calls)',
        'invalid_value',
        'messages',
      );
  }
  return texts.join('\n');
}
