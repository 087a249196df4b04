import type { Usage } from '../../billing/quota.ts';
import { countChatPrompt, countText } from '../../billing/tokenizer.ts';
import type { RelayInput } from '../../input.ts';
import type { UpstreamCall } from '../../providers/types.ts';
import { readUsage } from './usage.ts';

/** Usage of a non-stream answer: the upstream's, else counted here. */
export async function usageOf(
  input: RelayInput,
  call: UpstreamCall,
  json: any,
  outgoing?: Record<string, unknown>,
): Promise<Usage> {
  const { mode, info } = input;
  if (mode === 'images') return { promptTokens: info.images?.n ?? 1, completionTokens: 0, cachedTokens: 0 };
  if (mode === 'transcriptions' || mode === 'translations') {
    const u = json?.usage;
    if (u && (u.input_tokens || u.output_tokens)) return readUsage(u) ?? zero();
    let seconds = Number(u?.seconds ?? json?.duration);
    if (!Number.isFinite(seconds) || seconds <= 0) seconds = Math.max(1, (input.uploadBytes ?? 0) / 16000);
    return {
      promptTokens: Math.round((Math.ceil(seconds) / 60) * 1000),
      completionTokens: 0,
      cachedTokens: 0,
    };
  }
  const reported = readUsage(json?.usage);
  if (reported) return reported;
  if (mode === 'chat') {
    let text = '';
    let tools = 0;
    for (const c of json?.choices ?? []) {
      const m = c?.message ?? {};
      text += (m.content ?? '') + (m.reasoning_content ?? '');
      for (const t of m.tool_calls ?? []) {
        text += (t?.function?.name ?? '') + (t?.function?.arguments ?? '');
        tools++;
      }
    }
    return {
      promptTokens: await countChatPrompt(call.model, outgoing ?? {}),
      completionTokens: (await countText(call.model, text)) + 7 * tools,
      cachedTokens: 0,
    };
  }
  if (mode === 'completions') {
    const text = (json?.choices ?? []).map((c: any) => c?.text ?? '').join('');
    return {
      promptTokens: await countText(call.model, info.inputText),
      completionTokens: await countText(call.model, text),
      cachedTokens: 0,
    };
  }
  return { promptTokens: await countText(call.model, info.inputText), completionTokens: 0, cachedTokens: 0 };
}

const zero = (): Usage => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 });
