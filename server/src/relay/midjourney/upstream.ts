import type { ChannelEntry } from '../cache/channels.ts';
import { RelayError, scrub } from '../errors.ts';
import type { RelayState } from '../state.ts';

export interface MjReply {
  status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  json: unknown;
  text: string;
}

/** Timeouts of the calls the relay makes (midjourney-proxy answers a submit once Discord took it). */
export const SUBMIT_TIMEOUT_MS = 60_000;
export const SEED_TIMEOUT_MS = 30_000;
export const POLL_TIMEOUT_MS = 15_000;

/**
 * One call to a midjourney-proxy channel: `<base URL><path>` with the channel's secret in `mj-api-secret`,
 * through the relay's pooled, guarded upstream client (the channel's proxy setting applies). A connection
 * failure or timeout is a RelayError (502/504) whose text never shows the channel's address or secret.
 */
export async function callChannel(
  state: RelayState,
  ch: ChannelEntry,
  req: { method: 'GET' | 'POST'; path: string; body?: unknown; timeoutMs: number },
): Promise<MjReply> {
  const headers: Record<string, string> = { accept: 'application/json', 'mj-api-secret': ch.key };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  const res = await state.upstream.send({
    url: `${ch.baseUrl}${req.path}`,
    method: req.method,
    headers,
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
    stream: false,
    signal: AbortSignal.timeout(req.timeoutMs),
    proxy: ch.proxy,
  });
  let text: string;
  try {
    text = await res.body.text();
  } catch {
    throw new RelayError(
      502,
      'the upstream connection broke before its answer was complete',
      'upstream_error',
    );
  }
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text: scrub(text, [ch.key, ch.baseUrl]) };
}
