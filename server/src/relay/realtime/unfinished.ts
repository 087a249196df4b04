import type { RealtimeUsage } from './usage.ts';

/**
 * A response in flight, with what it has produced so far: enough to bill it when it never ends (the upstream
 * ignored the cancel of a client that left, or dropped mid-response), so that work done is never billed zero.
 */
export interface RunningResponse {
  startedAt: number;
  firstAt: number;
  /** Base64 characters of audio relayed. */
  audioChars: number;
  /** UTF-8 bytes of text and transcript relayed. */
  textBytes: number;
}

/**
 * Output audio as tokens: OpenAI counts about 20 tokens a second of assistant audio; pcm16 at 24 kHz, the
 * default format, is 48,000 bytes a second (G.711 carries a second in fewer bytes, so this counts it low).
 */
const AUDIO_BYTES_PER_TOKEN = 2_400;

const DELTA_FIELD = '"delta":"';
const QUOTE = 0x22;
const AUDIO_DELTA = /"type":"response\.(?:output_)?audio\.delta"/;
const TEXT_DELTA = /"type":"response\.(?:output_text|text|output_audio_transcript|audio_transcript)\.delta"/;

/** Adds a relayed event's output to the response it belongs to (audio deltas are never parsed). */
export function countOutput(running: Map<string, RunningResponse>, data: Buffer): void {
  if (running.size === 0 || !data.includes('.delta')) return;
  const head = data.subarray(0, 120).toString('latin1');
  if (AUDIO_DELTA.test(head)) {
    const run = [...running.values()].at(-1);
    const start = data.indexOf(DELTA_FIELD);
    if (run && start >= 0) {
      const end = data.indexOf(QUOTE, start + DELTA_FIELD.length);
      run.audioChars += (end < 0 ? data.length : end) - start - DELTA_FIELD.length;
    }
    return;
  }
  if (!TEXT_DELTA.test(head)) return;
  try {
    const e = JSON.parse(data.toString('utf8')) as { response_id?: unknown; delta?: unknown };
    const run =
      (typeof e.response_id === 'string' && running.get(e.response_id)) || [...running.values()].at(-1);
    if (run && typeof e.delta === 'string') run.textBytes += Buffer.byteLength(e.delta);
  } catch {
    // Not an event the gateway can read: nothing to count.
  }
}

/**
 * The usage of a response that never ended: its output as relayed (text at bytes / 4, audio by duration),
 * and the input of the session's last finished response (a session's context only grows), else none.
 */
export function unfinishedUsage(run: RunningResponse, lastInput?: RealtimeUsage): RealtimeUsage {
  const audioOut = Math.floor((run.audioChars * 3) / 4 / AUDIO_BYTES_PER_TOKEN);
  const textOut = Math.ceil(run.textBytes / 4);
  const audioIn = lastInput?.audioInput ?? 0;
  const textIn = lastInput?.textInput ?? 0;
  return {
    promptTokens: textIn + audioIn,
    completionTokens: textOut + audioOut,
    cachedTokens: 0,
    audioPromptTokens: audioIn,
    audioCompletionTokens: audioOut,
    textInput: textIn,
    audioInput: audioIn,
    textOutput: textOut,
    audioOutput: audioOut,
  };
}
