import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { cloudBetas, dropAnthropicOnlyFields, modelExtraHeaders } from '../anthropic/betas.ts';
import { anthropicAdapter } from '../anthropic/index.ts';
import { geminiAdapter } from '../gemini/index.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { predictEach, vertexEmbeddings } from './embeddings.ts';
import { parseServiceAccount, type ServiceAccount } from './key.ts';
import { familyOf, oneTextPerCall, originOf, regionOf, vertexClaudeId } from './models.ts';
import { accessToken } from './token.ts';

const ANTHROPIC_VERSION = 'vertex-2023-10-16';
const THINKING_SUFFIX = '-thinking';

/**
 * Google Vertex AI (type 41), authenticated by a service-account JSON key exchanged for OAuth tokens. Under
 * `/v1/projects/{project}/locations/{region}/publishers/...`: Gemini models at `google/models/{m}:generateContent`
 * (Gemini's body), Claude models at `anthropic/models/{m}:rawPredict` (Anthropic's body without `model`, with
 * Vertex's `anthropic_version`), text embeddings at `google/models/{m}:predict`.
 */
export const vertexAdapter: ProviderAdapter = {
  name: 'vertex',
  formatFor: (_ch, _client, model) => (familyOf(model) === 'claude' ? 'anthropic' : 'gemini'),
  modes: new Set(['embeddings']),
  embeddingFormat: 'vertex',
  embeddings: vertexEmbeddings,
  checkKey(key) {
    parseServiceAccount(key);
  },
  checkOther(other) {
    if (!other.trim()) throw new Error('Vertex AI channels need a deployment region in "other"');
    if (other.trim().startsWith('{')) {
      let regions: { default?: unknown } | undefined;
      try {
        regions = JSON.parse(other);
      } catch {}
      if (typeof regions?.default !== 'string')
        throw new Error('the Vertex AI region JSON must be an object with a "default" region');
    }
  },
  url(ch: ChannelEntry, call: UpstreamCall) {
    const sa = accountOf(ch);
    const claude = call.mode === 'chat' && call.format === 'anthropic';
    const model = claude ? vertexClaudeId(modelName(call)) : call.model;
    const region = regionOf(ch.setting.region, ch.other, [call.model, model]);
    if (!region)
      throw new RelayError(
        500,
        `channel #${ch.id} has a region setting that is not a Vertex AI region name`,
        'new_api_error',
        'channel_setting_invalid',
        null,
        false,
      );
    const action =
      call.mode === 'embeddings'
        ? 'predict'
        : claude
          ? call.stream
            ? 'streamRawPredict'
            : 'rawPredict'
          : call.stream
            ? 'streamGenerateContent?alt=sse'
            : 'generateContent';
    // Vertex's Claude ids carry `@`, which Google's paths take as it is.
    const id = encodeURIComponent(model).replace(/%40/g, '@');
    return `${ch.baseUrl || originOf(region)}/v1/projects/${sa.projectId}/locations/${region}/publishers/${
      claude ? 'anthropic' : 'google'
    }/models/${id}:${action}`;
  },
  async headers(ch, call) {
    const h: Record<string, string> = {};
    if (call.mode === 'chat' && call.format === 'anthropic') {
      // Claude: the model's configured headers and the betas Vertex takes (the version goes in the body).
      Object.assign(h, modelExtraHeaders(call));
      const betas = cloudBetas('vertex', call);
      if (betas.length) h['anthropic-beta'] = betas.join(',');
    }
    h.authorization = `Bearer ${await accessToken(accountOf(ch), call.options, ch.proxy)}`;
    return h;
  },
  streamUsage: () => true,
  prepareBody(body, ch, call) {
    if (call.mode !== 'chat') return false;
    if (call.format === 'gemini') return geminiAdapter.prepareBody?.(body, ch, call) ?? false;
    anthropicAdapter.prepareBody?.(body, ch, call);
    delete body.model;
    dropAnthropicOnlyFields(body);
    body.anthropic_version = ANTHROPIC_VERSION;
    return true;
  },
  send(req, _ch, call, http) {
    if (call.mode === 'embeddings' && oneTextPerCall(call.model)) {
      const count = (JSON.parse(req.body) as { instances?: unknown[] }).instances?.length ?? 0;
      if (count > 1) return predictEach(req, http);
    }
    return http({ url: req.url, headers: req.headers, body: req.body, stream: req.stream });
  },
};

/** Parsed keys by key text (parsing builds a key object; a channel's key is read on every call). */
const accounts = new Map<string, ServiceAccount>();

/** The channel's service account; a key saved before keys were checked fails the attempt (another may serve). */
function accountOf(ch: ChannelEntry): ServiceAccount {
  const hit = accounts.get(ch.key);
  if (hit) return hit;
  let sa: ServiceAccount;
  try {
    sa = parseServiceAccount(ch.key);
  } catch (err) {
    throw new RelayError(
      500,
      `channel #${ch.id} has an unusable key: ${(err as Error).message}`,
      'new_api_error',
      'channel_key_invalid',
      null,
      false,
    );
  }
  if (accounts.size >= 256) accounts.clear();
  accounts.set(ch.key, sa);
  return sa;
}

/** The model to call: without `-thinking` when the thinking adapter turns that suffix into a setting. */
function modelName(call: UpstreamCall): string {
  return call.model.endsWith(THINKING_SUFFIX) && call.options.bool('claude.thinking_adapter_enabled')
    ? call.model.slice(0, -THINKING_SUFFIX.length)
    : call.model;
}
