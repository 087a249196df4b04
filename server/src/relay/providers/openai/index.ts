import { channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../../cache/channels.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

/** Where OpenAI-compatible providers keep the `/v1` part of the path, when it is not `/v1`. */
const VERSION_PATH: Record<number, string> = {
  26: '/api/paas/v4', // Zhipu GLM-4V
  45: '/api/v3', // Volcano Engine
  46: '/v2', // Baidu Wenxin v2
};

/** Channel types whose servers honour stream_options.include_usage. */
const STREAM_USAGE = new Set([1, 3, 4, 20, 25, 39, 40, 42, 43, 45, 48]);

/** OpenAI and every provider that speaks its wire format (all channel types marked `openai`). */
export const openaiAdapter: ProviderAdapter = {
  name: 'openai',
  format: 'openai',
  url(ch: ChannelEntry, call: UpstreamCall) {
    const base = ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.openai.com';
    // Custom channels give the full endpoint, optionally with a {model} placeholder.
    if (ch.type === 8 && /\/v\d|\{model\}/.test(base))
      return base.replaceAll('{model}', encodeURIComponent(call.model));
    const version = VERSION_PATH[ch.type];
    const path = version ? call.path.replace(/^\/v1/, version) : call.path;
    return base + path;
  },
  headers(ch: ChannelEntry) {
    const h: Record<string, string> = { authorization: `Bearer ${ch.key}` };
    if (ch.type === 1 && ch.organization) h['openai-organization'] = ch.organization;
    if (ch.type === 20) {
      h['http-referer'] = 'https://github.com/modelgate/modelgate';
      h['x-title'] = 'ModelGate';
    }
    return h;
  },
  streamUsage: (ch) => STREAM_USAGE.has(ch.type) || ch.type === 8,
};
