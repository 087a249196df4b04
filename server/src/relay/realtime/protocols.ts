/**
 * The WebSocket subprotocols OpenAI's Realtime clients offer. Browsers cannot set headers on a WebSocket, so
 * they send `realtime`, `openai-insecure-api-key.<key>` and (beta clients) `openai-beta.realtime-v1`.
 */
const KEY_PREFIX = 'openai-insecure-api-key.';
const BETA = 'openai-beta.realtime-v1';
/** The protocols a server may echo, in OpenAI's order of preference. Never the key one. */
const ECHOED = ['realtime', BETA];

/** The protocols of a Sec-WebSocket-Protocol header value. */
export function offeredProtocols(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** The API key an `openai-insecure-api-key.<key>` subprotocol carries, or ''. */
export function keyFromProtocols(header: string | string[] | undefined): string {
  const p = offeredProtocols(header).find((x) => x.startsWith(KEY_PREFIX));
  return p ? p.slice(KEY_PREFIX.length) : '';
}

/** The subprotocol the gateway answers with: `realtime` (or the beta one) when offered, else none. */
export function chosenProtocol(offered: Iterable<string>): string | false {
  const set = new Set(offered);
  return ECHOED.find((p) => set.has(p)) ?? false;
}

/**
 * Whether the client speaks the beta Realtime protocol (`OpenAI-Beta: realtime=v1` or the beta subprotocol),
 * which the upstream must then be asked for too; the GA protocol otherwise.
 */
export function wantsBeta(headers: Record<string, string | string[] | undefined>): boolean {
  const beta = headers['openai-beta'];
  if ((Array.isArray(beta) ? beta.join(',') : (beta ?? '')).includes('realtime=v1')) return true;
  return offeredProtocols(headers['sec-websocket-protocol']).includes(BETA);
}
