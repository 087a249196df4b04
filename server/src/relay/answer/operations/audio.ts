import { Readable } from 'node:stream';
import { countText } from '../../billing/tokenizer.ts';
import type { FormatExchange } from '../format-answer.ts';
import type { Answered } from './answer.ts';
import { relayJsonAnswer } from './json-answer.ts';
import { readUsage, zeroUsage } from './reported-usage.ts';

/** Text to speech: the audio streams to the client as it arrives; billed by the input's characters or tokens. */
export async function speechAnswer(x: FormatExchange): Promise<Answered> {
  const answer = {
    body: Readable.from(x.res.body),
    contentType: String(x.res.headers['content-type'] ?? 'audio/mpeg'),
  };
  const { inputText } = x.input.info;
  const prompt = x.call.model.startsWith('tts')
    ? [...inputText].length
    : await countText(x.call.model, inputText);
  return {
    answer,
    produced: { usage: { promptTokens: prompt, completionTokens: 0, cachedTokens: 0 }, firstAt: 0 },
  };
}

/**
 * Transcriptions and translations: token usage when the upstream reports it (gpt-4o-transcribe), else the
 * audio's duration (reported, or estimated from the upload's size) at 1000 tokens a minute.
 */
export const audioTextAnswer = (x: FormatExchange): Promise<Answered> =>
  relayJsonAnswer(x, (json) => {
    const u = json?.usage;
    if (u && (u.input_tokens || u.output_tokens)) return readUsage(u) ?? zeroUsage();
    let seconds = Number(u?.seconds ?? json?.duration);
    if (!Number.isFinite(seconds) || seconds <= 0) seconds = Math.max(1, (x.input.uploadBytes ?? 0) / 16000);
    return {
      promptTokens: Math.round((Math.ceil(seconds) / 60) * 1000),
      completionTokens: 0,
      cachedTokens: 0,
    };
  });
