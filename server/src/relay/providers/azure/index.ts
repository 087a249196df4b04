import type { ChannelEntry } from '../../table-cache/channels.ts';
import { accountBase, listModelsAt } from '../model-list.ts';
import { openaiAdapter } from '../openai/index.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

const DEFAULT_API_VERSION = '2024-12-01-preview';
/** The Responses API needs a newer api-version than chat. */
const RESPONSES_API_VERSION = '2025-04-01-preview';

/**
 * Azure OpenAI: the OpenAI wire format at `/openai/deployments/<deployment>/<task>?api-version=<v>`, where the
 * deployment is the (mapped) model name without dots, and the key goes in `api-key`. Responses go to
 * `/openai/responses`, with the deployment as the body's model.
 */
export const azureAdapter: ProviderAdapter = {
  name: 'azure',
  formatFor: openaiAdapter.formatFor,
  url(ch: ChannelEntry, call: UpstreamCall) {
    const asked = new URLSearchParams(call.query).get('api-version') || ch.other.trim();
    if (call.format === 'responses')
      return `${ch.baseUrl}/openai/responses?api-version=${encodeURIComponent(asked || RESPONSES_API_VERSION)}`;
    const version = asked || DEFAULT_API_VERSION;
    const task = call.path.replace(/^\/v1\//, '');
    return `${ch.baseUrl}/openai/deployments/${deployment(call.model)}/${task}?api-version=${encodeURIComponent(version)}`;
  },
  headers: (ch) => ({ 'api-key': ch.key }),
  streamUsage: () => true,
  listModels: (ch, http) =>
    listModelsAt(http, `${accountBase(ch)}/openai/models?api-version=2024-10-21`, { 'api-key': ch.key }),
  prepareBody(body, _ch, call) {
    if (call.format !== 'responses') return false;
    body.model = call.model.replaceAll('.', '');
    return true;
  },
};

const deployment = (model: string) => encodeURIComponent(model.replaceAll('.', ''));
