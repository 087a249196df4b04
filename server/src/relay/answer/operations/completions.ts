import { countText } from '../../billing/tokenizer.ts';
import { guardChatAnswer } from '../../guardrails/whole-answer.ts';
import type { FormatExchange } from '../format-answer.ts';
import type { Answered } from './answer.ts';
import { relayJsonAnswer } from './json-answer.ts';
import { readUsage } from './reported-usage.ts';

/** /v1/completions (non-stream): the upstream's usage, else the prompt and the choices' text counted here. */
export const completionsAnswer = async (x: FormatExchange): Promise<Answered> => {
  const answered = await relayJsonAnswer(x, async (json) => {
    const reported = readUsage(json?.usage);
    if (reported) return reported;
    const text = (json?.choices ?? []).map((c: any) => c?.text ?? '').join('');
    return {
      promptTokens: await countText(x.call.model, x.input.info.inputText),
      completionTokens: await countText(x.call.model, text),
      cachedTokens: 0,
    };
  });
  // Guardrails, answer side: the choices' text masked (or the answer refused).
  const guard = x.input.answerGuard?.();
  if (guard && answered.json) answered.answer.body = guardChatAnswer(guard, answered.json);
  return answered;
};
