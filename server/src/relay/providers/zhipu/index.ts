import { channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { embeddingsAnswer, embeddingsBody, sendEmbeddings } from './embeddings.ts';
import { parseKey, zhipuToken } from './key.ts';
import { zhipuFrames } from './stream-body.ts';

/**
 * Zhipu ChatGLM on the v3 API (type 16): `/api/paas/v3/model-api/<model>/invoke`, or `/sse-invoke` for a
 * stream, with a JWT signed by the key's secret in Authorization (no Bearer). Embeddings are the
 * text_embedding model on the same path.
 */
export const zhipuAdapter: ProviderAdapter = {
  name: 'zhipu',
  formatFor: () => 'zhipu',
  modes: new Set(['embeddings']),
  embeddingFormat: 'zhipu',
  embeddings: {
    body: (_model, texts) => embeddingsBody(texts),
    answer: embeddingsAnswer,
  },
  checkKey: (key) => void parseKey(key),
  url(ch: ChannelEntry, call: UpstreamCall) {
    const base = ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://open.bigmodel.cn';
    const action = call.stream && call.mode === 'chat' ? 'sse-invoke' : 'invoke';
    return `${base}/api/paas/v3/model-api/${encodeURIComponent(call.model)}/${action}`;
  },
  headers: (ch) => ({ authorization: zhipuToken(ch.key) }),
  async send(req, _ch, call, http) {
    const several = call.mode === 'embeddings' ? await sendEmbeddings(req, http) : null;
    return several ?? http({ url: req.url, headers: req.headers, body: req.body, stream: req.stream });
  },
  streamBody: (body) => zhipuFrames(body),
  streamUsage: () => false,
};
