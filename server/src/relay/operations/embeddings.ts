import { countText } from '../billing/tokenizer.ts';
import { type FormatExchange, malformedAnswer } from '../format-attempt.ts';
import { embeddingList, geminiEmbedAnswer, openaiEmbedAnswer } from '../formats/embeddings.ts';
import type { Answered, ClientAnswer } from './answer.ts';
import { readAnswer } from './answer-body.ts';
import { relayJsonAnswer } from './json-answer.ts';
import { reportedOrInput } from './reported-usage.ts';

/** Embeddings: relayed as they came between OpenAI formats, else converted (OpenAI, Gemini, a provider's own). */
export async function embeddingsAnswer(x: FormatExchange): Promise<Answered> {
  if (x.input.format === 'openai' && x.call.format === 'openai')
    return relayJsonAnswer(x, (json) => reportedOrInput(x, json));
  const text = await readAnswer(x);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformedAnswer();
  }
  return convertedEmbeddings(x, json, text);
}

/**
 * Embeddings between OpenAI's and Gemini's formats. Gemini reports no usage for embeddings, so its prompt is
 * counted here; OpenAI's count is used when it gives one.
 */
async function convertedEmbeddings(x: FormatExchange, json: any, text: string): Promise<Answered> {
  const own =
    x.call.format !== 'openai' && x.call.format !== 'gemini' ? x.adapter.embeddings?.answer(json) : undefined;
  const counted = await countText(x.call.model, x.input.info.inputText);
  const reported = own
    ? own.promptTokens
    : x.call.format === 'openai'
      ? Number(json?.usage?.prompt_tokens) || 0
      : 0;
  const prompt = reported || counted;
  // A provider's own answer reads as OpenAI's from here on (floats, which a Gemini client gets).
  if (own) json = embeddingList(own.vectors, x.input.info.model, prompt);
  const base64 = x.input.json?.encoding_format === 'base64';
  const answer: ClientAnswer = !x.out.embedConverted
    ? { body: text, contentType: 'application/json' }
    : x.input.format === 'gemini'
      ? { body: geminiEmbedAnswer(json, x.input.embedBatch === true) }
      : own
        ? { body: embeddingList(own.vectors, x.input.info.model, prompt, base64) }
        : { body: openaiEmbedAnswer(json, x.input.info.model, prompt, base64) };
  return {
    answer,
    produced: { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 },
  };
}
