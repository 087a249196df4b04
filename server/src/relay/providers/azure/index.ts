import type { ChannelEntry } from '../../cache/channels.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

const DEFAULT_API_VERSION = '2024-12-01-preview';

/**
 * Azure OpenAI: the OpenAI wire format at `/openai/deployments/<deployment>/<task>?api-version=<v>`, where the
 * deployment is the (mapped) model name without dots, and the key goes in `api-key`.
 */
export const azureAdapter: ProviderAdapter = {
  name: 'azure',
  format: 'openai',
  url(ch: ChannelEntry, call: UpstreamCall) {
    const version =
      new URLSearchParams(call.query).get('api-version') || ch.other.trim() || DEFAULT_API_VERSION;
    const deployment = encodeURIComponent(call.model.replaceAll('.', ''));
    const task = call.path.replace(/^\/v1\//, '');
    return `${ch.baseUrl}/openai/deployments/${deployment}/${task}?api-version=${encodeURIComponent(version)}`;
  },
  headers: (ch) => ({ 'api-key': ch.key }),
  streamUsage: () => true,
};
