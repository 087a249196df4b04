import type { FormatExchange } from '../format-answer.ts';
import type { Answered } from './answer.ts';
import { relayJsonAnswer } from './json-answer.ts';

/** Image generation: billed per image (settle prices the count), whatever usage the answer reports. */
export const imagesAnswer = (x: FormatExchange): Promise<Answered> =>
  relayJsonAnswer(x, () => ({
    promptTokens: x.input.info.images?.n ?? 1,
    completionTokens: 0,
    cachedTokens: 0,
  }));
