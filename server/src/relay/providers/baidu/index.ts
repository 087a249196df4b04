import { channelTypeInfo } from '@modelgate/shared';
import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { chatEndpoint, embeddingEndpoint } from './endpoints.ts';
import { baiduError, errorCodeOf } from './errors.ts';
import { parseKey } from './key.ts';
import { sendWithToken } from './send.ts';

const WORKSHOP = '/rpc/2.0/ai_custom/v1/wenxinworkshop';

const baseOf = (ch: ChannelEntry) =>
  ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://aip.baidubce.com';

/**
 * Baidu Wenxin Workshop (type 15): ERNIE chat at `/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/<endpoint>` and
 * embeddings at `.../embeddings/<endpoint>`, the endpoint named after the model. The key `APIKey|SecretKey` is
 * exchanged for an access token (cached) that goes in the URL.
 */
export const baiduAdapter: ProviderAdapter = {
  name: 'baidu',
  formatFor: () => 'baidu',
  modes: new Set(['embeddings']),
  embeddingFormat: 'baidu',
  embeddings: {
    body: (_model, texts) => ({ input: texts }),
    answer(json) {
      const code = errorCodeOf(json);
      if (code !== null) throw relayErrorOf(baiduError(code, (json as { error_msg?: unknown }).error_msg, 0));
      const o = isObj(json) ? json : {};
      const data = (Array.isArray(o.data) ? o.data : []).filter(isObj);
      data.sort((a, b) => count(a.index) - count(b.index));
      return {
        vectors: data.map((d) => (Array.isArray(d.embedding) ? (d.embedding as number[]) : [])),
        promptTokens: count(isObj(o.usage) ? o.usage.prompt_tokens : 0),
      };
    },
  },
  checkKey: (key) => void parseKey(key),
  url(ch: ChannelEntry, call: UpstreamCall) {
    return call.mode === 'embeddings'
      ? `${baseOf(ch)}${WORKSHOP}/embeddings/${encodeURIComponent(embeddingEndpoint(call.model))}`
      : `${baseOf(ch)}${WORKSHOP}/chat/${encodeURIComponent(chatEndpoint(call.model))}`;
  },
  headers: () => ({}),
  send: (req, ch, _call, http) => sendWithToken(req, ch, http, baseOf(ch)),
  streamUsage: () => false,
};
