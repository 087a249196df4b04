import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { bodyOf, responseOf } from '../response.ts';
import type { ProviderAdapter, ProviderSend, UpstreamCall, UpstreamResponse } from '../types.ts';
import { channelKey, parseKey } from './key.ts';
import { signedUrl } from './sign.ts';
import { openExchange } from './socket.ts';
import { sparkTarget } from './version.ts';

const DEFAULT_BASE = 'wss://spark-api.xf-yun.com';

/** The channel's host as a WebSocket origin: an http(s) base URL becomes ws(s). */
const baseOf = (ch: ChannelEntry) => (ch.baseUrl || DEFAULT_BASE).replace(/^http/i, 'ws').replace(/\/+$/, '');

/**
 * iFlytek Spark (type 18): one WebSocket per request to `wss://spark-api.xf-yun.com/<version>/chat`, the URL
 * signed with the key `APPID|APISecret|APIKey` (sign.ts). The version and its `domain` come from the model
 * name or the channel's settings (version.ts). Streams are relayed frame by frame as SSE `data:` events; a
 * whole answer is the array of its frames.
 */
export const xunfeiAdapter: ProviderAdapter = {
  name: 'xunfei',
  formatFor: () => 'xunfei',
  modes: new Set(),
  checkKey: (key) => void parseKey(key),
  url: (ch: ChannelEntry, call: UpstreamCall) => baseOf(ch) + sparkTarget(ch, call.model).path,
  headers: () => ({}),
  prepareBody(body, ch, call) {
    const header = (body.header ?? {}) as Record<string, unknown>;
    const parameter = (body.parameter ?? {}) as Record<string, Record<string, unknown>>;
    body.header = { ...header, app_id: channelKey(ch.key).appId };
    body.parameter = {
      ...parameter,
      chat: { ...parameter.chat, domain: sparkTarget(ch, call.model).domain },
    };
    return true;
  },
  send: (req, ch) => sendSpark(req, ch),
  streamUsage: () => false,
};

async function sendSpark(req: ProviderSend, ch: ChannelEntry): Promise<UpstreamResponse> {
  if (ch.proxy)
    throw new RelayError(
      500,
      `channel #${ch.id} has a proxy, which its WebSocket connection cannot use`,
      'new_api_error',
      'channel_proxy_unsupported',
      null,
      false,
    );
  const key = channelKey(ch.key);
  const frames = await openExchange(signedUrl(req.url, key), req.body, req, [
    ch.key,
    key.apiSecret,
    key.apiKey,
  ]);
  if (req.stream)
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: bodyOf(sseOf(frames)),
    };
  const all: unknown[] = [];
  for await (const f of frames) all.push(f);
  return responseOf(200, [Buffer.from(JSON.stringify(all))]);
}

async function* sseOf(frames: AsyncIterable<unknown>): AsyncGenerator<Buffer> {
  for await (const f of frames) yield Buffer.from(`data: ${JSON.stringify(f)}\n\n`);
}
