import type { AudioUsage } from '../billing/quota.ts';

/** A response's usage with the text and audio counts its log row shows. */
export interface RealtimeUsage extends AudioUsage {
  textInput: number;
  audioInput: number;
  textOutput: number;
  audioOutput: number;
}

const count = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? Math.floor(x) : 0);
const object = (x: unknown): Record<string, unknown> =>
  x && typeof x === 'object' ? (x as Record<string, unknown>) : {};

/**
 * The usage of a `response.done` event (GA and beta share the shape): input and output tokens with their text,
 * audio, image and cached parts. Null when the event carries none. Without a cached split by kind, the cached
 * tokens are taken as audio first (the cheaper reading for the caller).
 */
export function realtimeUsage(raw: unknown): RealtimeUsage | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  const inDetails = object(u.input_token_details);
  const outDetails = object(u.output_token_details);
  const textIn = count(inDetails.text_tokens);
  const audioIn = count(inDetails.audio_tokens);
  const imageIn = count(inDetails.image_tokens);
  const audioOut = count(outDetails.audio_tokens);
  const input = Math.max(count(u.input_tokens), textIn + audioIn + imageIn);
  const output = Math.max(count(u.output_tokens), count(outDetails.text_tokens) + audioOut);
  const cached = Math.min(count(inDetails.cached_tokens), input);
  const split = inDetails.cached_tokens_details;
  const cachedAudio = Math.min(split ? count(object(split).audio_tokens) : cached, audioIn, cached);
  return {
    promptTokens: input,
    completionTokens: output,
    cachedTokens: cached,
    audioPromptTokens: audioIn - cachedAudio,
    audioCompletionTokens: Math.min(audioOut, output),
    textInput: input - audioIn,
    audioInput: audioIn,
    textOutput: output - Math.min(audioOut, output),
    audioOutput: Math.min(audioOut, output),
  };
}
