import { channelTypeInfo } from '@modelgate/shared';
import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { hunyuanEmbeddings } from './embeddings.ts';
import { API_VERSION, type Credentials, parseKey, tc3Authorization } from './sign.ts';
import { jsonAsSse } from './stream.ts';

/**
 * Tencent Hunyuan (type 23) through Tencent Cloud API 3.0: every call is a POST to `/` naming its action
 * (ChatCompletions, GetEmbedding) in X-TC-Action, signed with TC3-HMAC-SHA256 from the key
 * `AppId|SecretId|SecretKey`. The setting `region` is sent as X-TC-Region.
 */
export const hunyuanAdapter: ProviderAdapter = {
  name: 'hunyuan',
  formatFor: () => 'hunyuan',
  modes: new Set(['embeddings']),
  embeddingFormat: 'hunyuan',
  embeddings: hunyuanEmbeddings,
  checkKey: (key) => void parseKey(key),
  url(ch: ChannelEntry) {
    const base =
      ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://hunyuan.tencentcloudapi.com';
    return `${base}/`;
  },
  headers(ch: ChannelEntry, call: UpstreamCall, url: string, body: string | Buffer | undefined) {
    const { secretId, secretKey } = credentials(ch.key);
    const timestamp = Math.floor(Date.now() / 1000);
    // The relay sends JSON as application/json; the signature covers that exact value.
    const contentType = 'application/json';
    const h: Record<string, string> = {
      'content-type': contentType,
      'x-tc-action': call.mode === 'embeddings' ? 'GetEmbedding' : 'ChatCompletions',
      'x-tc-version': API_VERSION,
      'x-tc-timestamp': String(timestamp),
      authorization: tc3Authorization({
        secretId,
        secretKey,
        host: new URL(url).host,
        contentType,
        timestamp,
        body: body ?? '',
      }),
    };
    const region = typeof ch.setting.region === 'string' ? ch.setting.region.trim() : '';
    if (region) h['x-tc-region'] = region;
    return h;
  },
  streamUsage: () => true,
  streamBody: (body) => jsonAsSse(body),
};

/** A key saved before keys were checked fails this channel's attempt, not the request (others may serve it). */
function credentials(key: string): Credentials {
  try {
    return parseKey(key);
  } catch (err) {
    throw new RelayError(502, (err as Error).message, 'upstream_error', 'channel_key_invalid', null, false);
  }
}
