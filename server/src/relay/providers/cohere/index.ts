import { channelTypeInfo } from '@modelgate/shared';
import { isObj } from '../../formats/chat/check.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { errorAnswer } from '../error-answer.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { cohereEmbeddings, INPUT_TYPES } from './embed.ts';
import { decodeError } from './errors.ts';
import { rerank } from './rerank.ts';

const PATHS = { chat: '/v2/chat', embeddings: '/v2/embed', rerank: '/v2/rerank', models: '/v1/models' };

const baseOf = (ch: ChannelEntry) =>
  ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.cohere.ai';

/**
 * Cohere (type 34): Chat v2 (its own format, streamed as named SSE events), embeddings on `/v2/embed` and the
 * gateway's rerank on `/v2/rerank`, with a Bearer key. Setting: `input_type`, the embeddings' input type.
 */
export const cohereAdapter: ProviderAdapter = {
  name: 'cohere',
  formatFor: () => 'cohere',
  modes: new Set(['embeddings', 'rerank']),
  embeddingFormat: 'cohere',
  embeddings: cohereEmbeddings,
  checkKey(key) {
    if (!/^[A-Za-z0-9]{30,64}$/.test(key))
      throw new Error('Cohere keys are the API key from the Cohere dashboard: 40 letters and digits');
  },
  url(ch: ChannelEntry, call: UpstreamCall) {
    const mode = call.mode === 'embeddings' || call.mode === 'rerank' ? call.mode : 'chat';
    return baseOf(ch) + PATHS[mode];
  },
  headers: (ch) => ({ authorization: `Bearer ${ch.key}` }),
  streamUsage: () => true,
  prepareBody(body, ch, call) {
    const type = ch.setting.input_type;
    if (call.mode !== 'embeddings' || typeof type !== 'string' || !INPUT_TYPES.has(type)) return false;
    body.input_type = type;
    return true;
  },
  async send(req, _ch, call, http) {
    if (call.mode === 'rerank') return rerank(req, http);
    const res = await http({ url: req.url, headers: req.headers, body: req.body, stream: req.stream });
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    return errorAnswer(decodeError(res.statusCode, await res.body.text().catch(() => '')));
  },
  async listModels(ch, http) {
    const json = await http(`${baseOf(ch)}${PATHS.models}?page_size=1000`, {
      headers: { authorization: `Bearer ${ch.key}` },
    });
    const models = isObj(json) && Array.isArray(json.models) ? json.models : [];
    return models.flatMap((m) => (isObj(m) && typeof m.name === 'string' ? [m.name] : []));
  },
};
