import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ChannelsTable } from '../../db/schema.ts';
import { inspectJson } from '../admit/inspect-request.ts';
import type { RelayInput } from '../admit/relay-input.ts';
import { upstreamCodecFor } from '../formats/codecs.ts';
import { adapterFor } from '../providers/index.ts';
import { RelayError, upstreamError } from '../relay-error.ts';
import { relayState } from '../relay-state.ts';
import { type ChannelEntry, toEntry } from '../table-cache/channels.ts';
import { callFor, outgoingFor } from './upstream-request.ts';

export interface ChannelTestResult {
  success: boolean;
  /** Upstream HTTP status, 0 when it could not be reached. */
  status: number;
  /** Wall time of the call in milliseconds. */
  timeMs: number;
  /** Empty on success; the (scrubbed) upstream or network error otherwise. */
  message: string;
  model: string;
  /** The upstream error's type and code (OpenAI error object), for the auto-disable rules. */
  type?: string;
  code?: string | null;
}

const isEmbedding = (m: string) => /embed/i.test(m) || m.startsWith('m3e') || m.includes('bge-');

/** The model a test uses: the one asked for, else the channel's test model, else its first model. */
export function testModelOf(ch: ChannelEntry, model?: string): string {
  return model?.trim() || ch.testModel || ch.models[0] || 'gpt-4o-mini';
}

/**
 * Sends one small request (chat "hi" with max_tokens 10, or an embedding for embedding models) to one channel,
 * whatever its status, and reports status, time and error. Nothing is billed or logged; the channel's model
 * mapping applies.
 */
export async function testChannel(
  ctx: AppContext,
  channel: Selectable<ChannelsTable> | ChannelEntry,
  model?: string,
): Promise<ChannelTestResult> {
  const ch = 'base_url' in channel ? toEntry(channel) : channel;
  const name = testModelOf(ch, model);
  const started = performance.now();
  const result = (
    success: boolean,
    status: number,
    message: string,
    err?: RelayError,
  ): ChannelTestResult => ({
    success,
    status,
    timeMs: Math.round(performance.now() - started),
    message,
    model: name,
    type: err?.type,
    code: err?.code,
  });
  const failed = (status: number, err: RelayError) => result(false, status, err.message, err);
  const adapter = adapterFor(ch.type);
  if (!adapter) return result(false, 0, 'this channel type cannot be tested by the relay yet');
  const mode =
    isEmbedding(name) && (!adapter.modes || adapter.modes.has('embeddings')) ? 'embeddings' : 'chat';
  const json: Record<string, unknown> =
    mode === 'embeddings'
      ? { model: name, input: ['hello world'] }
      : { model: name, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 };
  // The same request building as the relay: a channel of another format gets it converted.
  const input: RelayInput = { mode, format: 'openai', info: inspectJson(mode, json), json };
  const call = callFor(ctx.options, input, '', {}, ch, adapter);
  const out = outgoingFor(input, call, adapter, ch, 'channel-test', false);
  const url = adapter.url(ch, call);
  const timeout = (ctx.config.relayTimeoutSec || 60) * 1000;
  try {
    const headers = {
      ...(await adapter.headers(ch, call, url, String(out.body))),
      'content-type': 'application/json',
      accept: 'application/json',
    };
    const signal = AbortSignal.timeout(timeout);
    const res = adapter.send
      ? await adapter.send(
          {
            url,
            headers,
            body: String(out.body),
            stream: false,
            signal: abortOf(signal),
            options: ctx.options,
          },
          ch,
          call,
          (r) => relayState(ctx).upstream.send({ ...r, signal, proxy: ch.proxy }),
        )
      : await relayState(ctx).upstream.send({
          url,
          headers,
          body: out.body,
          stream: false,
          signal,
          proxy: ch.proxy,
        });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300)
      return failed(res.statusCode, upstreamError(res.statusCode, text, [ch.key, ch.baseUrl]));
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      return result(false, res.statusCode, 'the upstream answered with a body that is not JSON');
    }
    if ((answer as { error?: unknown })?.error)
      return failed(res.statusCode, upstreamError(res.statusCode, text, [ch.key, ch.baseUrl]));
    // A generation answer must read as one in the channel's format (a wrong base URL often answers 200 HTML/JSON).
    if (mode === 'chat' && call.format !== 'openai')
      upstreamCodecFor(call.format).decodeResponse(answer, {
        model: call.model,
        stream: false,
        requestId: 'channel-test',
      });
    return result(true, res.statusCode, '');
  } catch (err) {
    const e = err instanceof RelayError ? err : new RelayError(502, String((err as Error)?.message ?? err));
    // An administrator's test shows what the API caller is not told (a token endpoint's answer).
    return result(false, 0, e.detail ?? e.message);
  }
}

/** An AbortSignal as the signal a provider's own transport listens to. */
const abortOf = (signal: AbortSignal) => ({
  get aborted() {
    return signal.aborted;
  },
  on: (_event: 'abort', listener: () => void) => signal.addEventListener('abort', listener, { once: true }),
});
