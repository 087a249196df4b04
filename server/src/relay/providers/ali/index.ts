import { channelTypeInfo } from '@modelgate/shared';
import { isObj } from '../../formats/chat/check.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { errorAnswer } from '../error-answer.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { aliEmbeddings } from './embeddings.ts';
import { decodeError } from './errors.ts';
import { imageTask } from './images.ts';
import { isMultimodal } from './request.ts';
import { rerank } from './rerank.ts';

const PATHS = {
  text: '/api/v1/services/aigc/text-generation/generation',
  multimodal: '/api/v1/services/aigc/multimodal-generation/generation',
  embeddings: '/api/v1/services/embeddings/text-embedding/text-embedding',
  images: '/api/v1/services/aigc/text2image/image-synthesis',
  rerank: '/api/v1/services/rerank/text-rerank/text-rerank',
  tasks: '/api/v1/tasks',
};

/** A model named `<model>-internet` is `<model>` with DashScope's web search on. */
const SEARCH_SUFFIX = '-internet';

const baseOf = (ch: ChannelEntry) =>
  ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://dashscope.aliyuncs.com';

/**
 * Alibaba Qwen (type 17) through DashScope's native API, with a Bearer key: generation (text, or
 * multimodal for the -vl models) with incremental SSE, text embeddings, text rerank and Wanx images (an
 * async task polled to its end). Settings: `enable_search` (web search for every model; a model named
 * `<model>-internet` gets it too), `workspace` (the X-DashScope-WorkSpace id), `poll_interval_ms` (image
 * task polling).
 */
export const aliAdapter: ProviderAdapter = {
  name: 'ali',
  formatFor: () => 'ali',
  modes: new Set(['embeddings', 'images', 'rerank']),
  embeddingFormat: 'ali',
  embeddings: aliEmbeddings,
  checkKey(key) {
    if (!/^[\x21-\x7e]+$/.test(key) || key.includes('|'))
      throw new Error('DashScope keys are a single API key (sk-...), without spaces or |');
  },
  url(ch: ChannelEntry, call: UpstreamCall) {
    const base = baseOf(ch);
    if (call.mode === 'embeddings') return base + PATHS.embeddings;
    if (call.mode === 'images') return base + PATHS.images;
    if (call.mode === 'rerank') return base + PATHS.rerank;
    return base + (isMultimodal(call.model) ? PATHS.multimodal : PATHS.text);
  },
  headers(ch: ChannelEntry, call: UpstreamCall) {
    const h: Record<string, string> = { authorization: `Bearer ${ch.key}` };
    if (call.mode === 'chat' && call.stream) h['x-dashscope-sse'] = 'enable';
    if (call.mode === 'images') h['x-dashscope-async'] = 'enable';
    if (typeof ch.setting.workspace === 'string' && ch.setting.workspace.trim())
      h['x-dashscope-workspace'] = ch.setting.workspace.trim();
    return h;
  },
  streamUsage: () => true,
  prepareBody(body, ch, call) {
    if (call.mode !== 'chat') return false;
    const model = typeof body.model === 'string' ? body.model : '';
    const suffixed = model.endsWith(SEARCH_SUFFIX);
    if (!suffixed && ch.setting.enable_search !== true) return false;
    if (suffixed) body.model = model.slice(0, -SEARCH_SUFFIX.length);
    body.parameters = { ...(isObj(body.parameters) ? body.parameters : {}), enable_search: true };
    return true;
  },
  async send(req, ch, call, http) {
    if (call.mode === 'images') return imageTask(req, ch, http, baseOf(ch) + PATHS.tasks);
    if (call.mode === 'rerank') return rerank(req, http);
    const res = await http({ url: req.url, headers: req.headers, body: req.body, stream: req.stream });
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    return errorAnswer(decodeError(res.statusCode, await res.body.text().catch(() => '')));
  },
  /** DashScope lists the account's models on its OpenAI-compatible endpoint. */
  async listModels(ch, http) {
    const json = await http(`${baseOf(ch)}/compatible-mode/v1/models`, {
      headers: { authorization: `Bearer ${ch.key}` },
    });
    const data = isObj(json) && Array.isArray(json.data) ? json.data : [];
    return data.flatMap((m) => (isObj(m) && typeof m.id === 'string' ? [m.id] : []));
  },
};
