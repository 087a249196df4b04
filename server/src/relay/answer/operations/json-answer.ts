import type { Usage } from '../../billing/quota.ts';
import { upstreamError } from '../../relay-error.ts';
import { type FormatExchange, malformedAnswer } from '../format-answer.ts';
import type { Answered } from './answer.ts';
import { readAnswer } from './answer-body.ts';

/**
 * An OpenAI-style JSON answer (completions, moderations, images, transcriptions, rerank...) sent to the
 * client as it came, with its content type, and billed by `usageOf`. A body that says it is JSON must parse;
 * an error object inside a 200 is a failure another channel may do better at.
 */
export async function relayJsonAnswer(
  x: FormatExchange,
  usageOf: (json: any) => Usage | Promise<Usage>,
): Promise<Answered & { json: any }> {
  const text = await readAnswer(x);
  const contentType = String(x.res.headers['content-type'] ?? 'application/json');
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    if (contentType.includes('json')) throw malformedAnswer();
  }
  if (json && typeof json === 'object' && json.error && typeof json.error === 'object' && json.error.type)
    throw upstreamError(500, text, [x.ch.key, x.ch.baseUrl]);
  const usage = await usageOf(json);
  return { answer: { body: text, contentType }, produced: { usage, firstAt: 0 }, json };
}
