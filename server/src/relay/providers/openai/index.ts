import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { accountBase, listModelsAt } from '../model-list.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

/** Where OpenAI-compatible providers keep the `/v1` part of the path, when it is not `/v1`. */
const VERSION_PATH: Record<number, string> = {
  [ChannelType.ZhipuV4]: '/api/paas/v4',
  [ChannelType.VolcEngine]: '/api/v3',
  [ChannelType.BaiduV2]: '/v2',
};

/** Channel types whose servers honour stream_options.include_usage. */
const STREAM_USAGE = new Set([1, 3, 4, 20, 25, 39, 40, 42, 43, 45, 48]);

/** Channel types whose servers have OpenAI's Responses API (`/v1/responses`); the others get chat. */
export const RESPONSES_TYPES = new Set<number>([ChannelType.OpenAI, ChannelType.Azure, ChannelType.XAI]);

/** OpenAI and every provider that speaks its wire format (all channel types marked `openai`). */
export const openaiAdapter: ProviderAdapter = {
  name: 'openai',
  // Responses clients get the Responses API where the server has it; a channel with the setting
  // `responses_api` sends every client there (models served only by it, such as the codex ones).
  formatFor: (ch, client) =>
    (client === 'responses' || ch.setting.responses_api === true) && RESPONSES_TYPES.has(ch.type)
      ? 'responses'
      : 'openai',
  url(ch: ChannelEntry, call: UpstreamCall) {
    const base = ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.openai.com';
    // Custom channels give the full endpoint, optionally with a {model} placeholder.
    if (ch.type === ChannelType.Custom && /\/v\d|\{model\}/.test(base))
      return base.replaceAll('{model}', encodeURIComponent(call.model));
    const version = VERSION_PATH[ch.type];
    const path = version ? call.path.replace(/^\/v1/, version) : call.path;
    return base + path;
  },
  headers: bearer,
  streamUsage: (ch) => STREAM_USAGE.has(ch.type) || ch.type === ChannelType.Custom,
  listModels: (ch, http) => listModelsAt(http, `${accountBase(ch)}/v1/models`, bearer(ch)),
};

function bearer(ch: ChannelEntry): Record<string, string> {
  const h: Record<string, string> = { authorization: `Bearer ${ch.key}` };
  if (ch.type === ChannelType.OpenAI && ch.organization) h['openai-organization'] = ch.organization;
  if (ch.type === ChannelType.OpenRouter) {
    h['http-referer'] = 'https://github.com/modelgate/modelgate';
    h['x-title'] = 'ModelGate';
  }
  return h;
}
