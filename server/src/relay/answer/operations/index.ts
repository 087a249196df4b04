import type { Mode } from '../../admit/inspect-request.ts';
import type { Produced } from '../../admit/relay-input.ts';
import { answerInFormats, type FormatExchange } from '../format-answer.ts';
import { type Answered, sendAnswer } from './answer.ts';
import { readAnswer } from './answer-body.ts';
import { audioTextAnswer, speechAnswer } from './audio.ts';
import { completionsAnswer } from './completions.ts';
import { embeddingsAnswer } from './embeddings.ts';
import { imagesAnswer } from './images.ts';
import { relayJsonAnswer } from './json-answer.ts';
import { reportedOrInput } from './reported-usage.ts';

/** The upstream's usage, else the input counted here (moderations, rerank, a relayed token count). */
const countedInput = (x: FormatExchange) => relayJsonAnswer(x, (json) => reportedOrInput(x, json));

/**
 * How each operation answers its client once the upstream has answered 2xx without a stream (streams of
 * every operation go through streamInFormats): the client's answer and what it is billed.
 */
const OPERATIONS: Record<Mode, (x: FormatExchange) => Promise<Answered>> = {
  chat: async (x) => answerInFormats(x, await readAnswer(x)),
  completions: completionsAnswer,
  embeddings: embeddingsAnswer,
  moderations: countedInput,
  images: imagesAnswer,
  speech: speechAnswer,
  transcriptions: audioTextAnswer,
  translations: audioTextAnswer,
  rerank: countedInput,
  count_tokens: countedInput,
};

export async function answerOperation(x: FormatExchange): Promise<Produced> {
  const { answer, produced } = await OPERATIONS[x.input.mode](x);
  sendAnswer(x.reply, answer);
  return produced;
}
