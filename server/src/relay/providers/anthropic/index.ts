import { channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { accountBase, listModelsAt } from '../model-list.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { headerValues, modelExtraHeaders, requestedBetas } from './betas.ts';

const API_VERSION = '2023-06-01';
const THINKING_SUFFIX = '-thinking';

/**
 * Anthropic (type 14): Messages at `/v1/messages`, the key in `x-api-key`, the client's `anthropic-version`
 * and `anthropic-beta` passed on (plus per-model headers from `claude.model_headers_settings`). Models named
 * `<model>-thinking` get extended thinking when `claude.thinking_adapter_enabled` is on.
 */
export const anthropicAdapter: ProviderAdapter = {
  name: 'anthropic',
  formatFor: () => 'anthropic',
  modes: new Set(),
  url(ch: ChannelEntry) {
    const base = ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.anthropic.com';
    return `${base}/v1/messages`;
  },
  headers(ch, call) {
    const h: Record<string, string> = {
      'x-api-key': ch.key,
      'anthropic-version': headerValues(call.clientHeaders['anthropic-version']) || API_VERSION,
      ...modelExtraHeaders(call),
    };
    const { client, configured } = requestedBetas(call);
    const betas = new Set([...client, ...configured]);
    if (betas.size) h['anthropic-beta'] = [...betas].join(',');
    return h;
  },
  streamUsage: () => true,
  listModels: (ch, http) =>
    listModelsAt(http, `${accountBase(ch, 'https://api.anthropic.com')}/v1/models`, {
      'x-api-key': ch.key,
      'anthropic-version': API_VERSION,
    }),
  prepareBody(body, _ch, call) {
    if (!call.options.bool('claude.thinking_adapter_enabled')) return false;
    const model = typeof body.model === 'string' ? body.model : '';
    if (!model.endsWith(THINKING_SUFFIX)) return false;
    body.model = model.slice(0, -THINKING_SUFFIX.length);
    if (body.thinking) return true;
    const max = Math.max(typeof body.max_tokens === 'number' ? body.max_tokens : 0, 1280);
    const share = call.options.float('claude.thinking_adapter_budget_tokens_percentage') || 0.8;
    body.max_tokens = max;
    body.thinking = { type: 'enabled', budget_tokens: Math.max(1024, Math.floor(max * share)) };
    body.temperature = 1;
    delete body.top_p;
    delete body.top_k;
    return true;
  },
};

/** Claude 3 and older models write at most 4,096 tokens, and Anthropic refuses a larger max_tokens. */
const FOUR_K_MODELS = /claude-(instant|2|3-(haiku|opus|sonnet))/;
const FOUR_K = 4096;

/**
 * `claude.default_max_tokens`: max_tokens for a model whose request has none. The model's own entry as set;
 * the `default` entry (8192 unless set) no higher than the model can write.
 */
export function claudeDefaultMaxTokens(call: UpstreamCall): number {
  const map = call.options.json<Record<string, number>>('claude.default_max_tokens') ?? {};
  const own = map[call.model] ?? map[call.model.replace(/-thinking$/, '')];
  if (typeof own === 'number' && own > 0) return Math.floor(own);
  const n = typeof map.default === 'number' && map.default > 0 ? Math.floor(map.default) : 8192;
  return FOUR_K_MODELS.test(call.model) ? Math.min(n, FOUR_K) : n;
}
