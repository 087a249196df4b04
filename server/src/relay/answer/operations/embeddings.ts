import { countText } from '../../billing/tokenizer.ts';
import type { EmbeddingsWire } from '../../formats/codec.ts';
import { codecFor, upstreamCodecOf } from '../../formats/codecs.ts';
import { type FormatExchange, malformedAnswer } from '../format-answer.ts';
import type { Answered, ClientAnswer } from './answer.ts';
import { readAnswer } from './answer-body.ts';
import { relayJsonAnswer } from './json-answer.ts';
import { reportedOrInput } from './reported-usage.ts';

/** Embeddings: relayed as they came within a format that reports usage, else read (and converted). */
export async function embeddingsAnswer(x: FormatExchange): Promise<Answered> {
  const upstream = upstreamCodecOf(x.call.format)?.embeddings;
  if (!x.out.embedConverted && upstream?.promptTokens)
    return relayJsonAnswer(x, (json) => reportedOrInput(x, json));
  const text = await readAnswer(x);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformedAnswer();
  }
  return convertedEmbeddings(x, json, text, upstream);
}

/**
 * Embeddings between OpenAI's and Gemini's formats, or from a provider's own shape (its adapter reads it).
 * Gemini reports no usage for embeddings, so its prompt is counted here; a count the upstream gives is used.
 */
async function convertedEmbeddings(
  x: FormatExchange,
  json: unknown,
  text: string,
  upstream: EmbeddingsWire | undefined,
): Promise<Answered> {
  const own = upstream ? undefined : x.adapter.embeddings?.answer(json);
  const counted = await countText(x.call.model, x.input.info.inputText);
  const reported = own ? own.promptTokens : (upstream?.promptTokens?.(json) ?? 0);
  const prompt = reported || counted;
  const client = codecFor(x.input.format).embeddings;
  const answer: ClientAnswer =
    !x.out.embedConverted || !client
      ? { body: text, contentType: 'application/json' }
      : {
          body: client.answer(own ? own.vectors : (upstream?.vectors(json) ?? []), {
            model: x.input.info.model,
            promptTokens: prompt,
            request: x.input.json,
            batch: x.input.embedBatch === true,
          }),
        };
  return {
    answer,
    produced: { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 },
  };
}
