import { RelayError, scrub } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';

export interface TaskReply {
  status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  json: unknown;
  /** The body as text, with the channel's key and address taken out. */
  text: string;
}

/**
 * One JSON call to a task platform's channel: `<base URL><path>` with the platform's auth headers, through the
 * relay's pooled, guarded upstream client (the channel's proxy setting applies). A connection failure or
 * timeout is a RelayError (502/504) whose text never shows the channel's address or secret.
 */
export async function callTaskChannel(
  state: RelayState,
  ch: ChannelEntry,
  req: {
    method: 'GET' | 'POST';
    path: string;
    body?: unknown;
    timeoutMs: number;
    auth: Record<string, string>;
  },
): Promise<TaskReply> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.auth };
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
