/**
 * Local token counts, used only when an upstream reports no usage. The encodings are large, so each is loaded
 * on first use: o200k_base for the gpt-4o / o-series / gpt-4.1+ families, cl100k_base for everything else.
 */
type Counter = (text: string) => number;
let o200k: Counter | undefined;
let cl100k: Counter | undefined;

async function counterFor(model: string): Promise<Counter> {
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4)/.test(model)) {
    if (!o200k) o200k = (await import('gpt-tokenizer/encoding/o200k_base')).countTokens;
    return o200k;
  }
  if (!cl100k) cl100k = (await import('gpt-tokenizer/encoding/cl100k_base')).countTokens;
  return cl100k;
}

export async function countText(model: string, text: string): Promise<number> {
  if (!text) return 0;
  return (await counterFor(model))(text);
}

/** Chat prompt tokens the way OpenAI counts them: 3 per message + role + name + content, 3 to prime the reply. */
export async function countChatPrompt(model: string, body: Record<string, unknown>): Promise<number> {
  const count = await counterFor(model);
  let total = 3;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages as Array<Record<string, unknown>>) {
    total += 3 + count(String(m?.role ?? ''));
    if (typeof m?.name === 'string') total += 1 + count(m.name);
    const content = m?.content;
    if (typeof content === 'string') total += count(content);
    else if (Array.isArray(content)) {
      for (const part of content as Array<Record<string, any>>) {
        if (part?.type === 'text') total += count(String(part.text ?? ''));
        else if (part?.type === 'image_url') total += part.image_url?.detail === 'low' ? 85 : 255;
        else if (part?.type === 'input_audio') total += 100;
      }
    }
    if (Array.isArray(m?.tool_calls)) total += count(JSON.stringify(m.tool_calls));
  }
  if (Array.isArray(body.tools) && body.tools.length) total += 8 + count(JSON.stringify(body.tools));
  return total;
}
