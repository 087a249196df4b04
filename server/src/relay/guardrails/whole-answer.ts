import type { Produced } from '../admit/relay-input.ts';
import type { AnswerGuard } from './answer.ts';

/** A whole text through the guard: masked, or the refusal thrown when a blocking rule fires. */
function guardText(guard: AnswerGuard, text: string, choice: number): string {
  const out = guard.pass(text, choice) + guard.flush(choice);
  if (guard.blocked) {
    guard.logRefusal(guard.blockedRule as string);
    throw guard.error();
  }
  return out;
}

/** A non-streamed answer decoded into the hub: its text parts masked in place. */
export function guardAnswerParts(guard: AnswerGuard, parts: Array<{ type: string; text?: string }>): void {
  for (const p of parts)
    if (p.type === 'text' && typeof p.text === 'string') p.text = guardText(guard, p.text, 0);
}

/** A non-streamed OpenAI chat (or completions) answer: its body with every choice's text masked. */
export function guardChatAnswer(guard: AnswerGuard, json: any): string {
  const choices = Array.isArray(json?.choices) ? json.choices : [];
  choices.forEach((c: any, i: number) => {
    const index = typeof c?.index === 'number' ? c.index : i;
    if (typeof c?.message?.content === 'string')
      c.message.content = guardText(guard, c.message.content, index);
    if (typeof c?.text === 'string') c.text = guardText(guard, c.text, index);
  });
  return JSON.stringify(json);
}

/** What the log row of a stream a guardrail stopped says: the rule, never the text. */
export function answerBlocked(guard: AnswerGuard): Pick<Produced, 'note' | 'other'> {
  return {
    note: `guardrail ${guard.blockedRule} stopped the answer`,
    other: { guardrail: { rule: guard.blockedRule, side: 'answer' } },
  };
}
