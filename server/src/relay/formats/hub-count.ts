import { IMAGE_TOKENS_ESTIMATE, PromptMeter, type PromptSize } from '../billing/prompt-size.ts';
import type { Usage } from '../billing/quota.ts';
import { countText } from '../billing/tokenizer.ts';
import type { HubPart, HubRequest, HubUsage } from './hub.ts';

/** Tokens an image is counted as when nothing better is known (OpenAI's high-detail tile cost). */
const IMAGE_TOKENS = IMAGE_TOKENS_ESTIMATE;

/** The prompt's text (system, messages, tool definitions) and how many images and files it holds. */
export function promptText(req: HubRequest): { text: string; images: number } {
  const texts: string[] = [];
  let images = 0;
  for (const s of req.system) texts.push(s.text);
  const visit = (p: HubPart) => {
    switch (p.type) {
      case 'text':
      case 'thinking':
      case 'refusal':
        texts.push(p.text);
        break;
      case 'tool_call':
        texts.push(p.name, p.args);
        break;
      case 'tool_result':
        for (const c of p.content) visit(c);
        break;
      case 'image':
      case 'file':
        images++;
        break;
    }
  };
  for (const m of req.messages) for (const p of m.parts) visit(p);
  for (const t of req.tools) texts.push(t.name, t.description ?? '', JSON.stringify(t.parameters));
  return { text: texts.join('\n'), images };
}

/** The prompt's size for the hold (billing/prompt-size.ts), counted over the same parts as promptText. */
export function promptSize(req: HubRequest): PromptSize {
  const meter = new PromptMeter().turn(req.messages.length);
  const { text } = promptText(req);
  meter.text(Buffer.byteLength(text));
  const visit = (p: HubPart) => {
    if (p.type === 'image') meter.image();
    else if (p.type === 'file') meter.file(p.data);
    else if (p.type === 'tool_result') for (const c of p.content) visit(c);
  };
  for (const m of req.messages) for (const p of m.parts) visit(p);
  return meter.size();
}

/** The prompt counted with the local tokenizer (count_tokens endpoints; usage an upstream did not report). */
export async function countPrompt(model: string, req: HubRequest): Promise<number> {
  const { text, images } = promptText(req);
  return (await countText(model, text)) + images * IMAGE_TOKENS + 3 * req.messages.length + 3;
}

/** Hub usage as the billing's usage. */
export const usageFromHub = (u: HubUsage): Usage => ({
  promptTokens: u.input,
  completionTokens: u.output,
  cachedTokens: u.cacheRead,
  cacheWriteTokens: u.cacheWrite,
  cacheWrite1hTokens: u.cacheWrite1h,
  reasoningTokens: u.reasoning,
  webSearches: u.webSearches,
});
