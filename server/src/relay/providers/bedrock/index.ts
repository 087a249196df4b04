import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { cloudBetas, dropAnthropicOnlyFields } from '../anthropic/betas.ts';
import { anthropicAdapter } from '../anthropic/index.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';
import { type AwsKey, parseKey, signedHeaders } from './credentials.ts';
import { anthropicSse } from './event-stream.ts';
import { bedrockModelId, crossRegionPrefix } from './models.ts';

const BEDROCK_VERSION = 'bedrock-2023-05-31';
const THINKING_SUFFIX = '-thinking';

/**
 * AWS Claude (type 33): Anthropic's Messages body on Bedrock's runtime, at `/model/{id}/invoke` or
 * `/invoke-with-response-stream`, SigV4-signed with the key `AK|SK|Region`. The body loses `model` and
 * `stream` (Bedrock refuses them) and gains `anthropic_version` and the betas Bedrock takes as `anthropic_beta` (see anthropic/betas.ts).
 * Streams come as AWS's binary event stream, turned back into Anthropic's SSE here.
 */
export const bedrockAdapter: ProviderAdapter = {
  name: 'bedrock',
  formatFor: () => 'anthropic',
  modes: new Set(),
  checkKey(key) {
    parseKey(key);
  },
  url(ch: ChannelEntry, call: UpstreamCall) {
    const { region } = keyOf(ch);
    const id = bedrockModelId(modelName(call), crossRegionPrefix(ch.setting.aws_cross_region, region));
    const origin = ch.baseUrl || `https://bedrock-runtime.${region}.amazonaws.com`;
    return `${origin}/model/${encodeURIComponent(id)}/${call.stream ? 'invoke-with-response-stream' : 'invoke'}`;
  },
  headers(ch, _call, url, body) {
    return signedHeaders(keyOf(ch), 'bedrock', 'POST', url, body);
  },
  streamUsage: () => true,
  prepareBody(body, ch, call) {
    // Extended thinking for `<model>-thinking` names, as on Anthropic's own channels.
    anthropicAdapter.prepareBody?.(body, ch, call);
    delete body.model;
    delete body.stream;
    body.anthropic_version = BEDROCK_VERSION;
    dropAnthropicOnlyFields(body);
    const betas = cloudBetas('bedrock', call);
    if (betas.length && body.anthropic_beta === undefined) body.anthropic_beta = betas;
    return true;
  },
  streamBody: (body) => anthropicSse(body),
  async listModels(ch, http) {
    const key = parseKey(ch.key);
    const origin = ch.baseUrl || `https://bedrock.${key.region}.amazonaws.com`;
    const url = `${origin}/foundation-models?byProvider=anthropic`;
    const answer = (await http(url, {
      method: 'GET',
      headers: await signedHeaders(key, 'bedrock', 'GET', url, undefined),
    })) as { modelSummaries?: Array<{ modelId?: unknown; inferenceTypesSupported?: unknown }> };
    return (answer?.modelSummaries ?? [])
      .filter((m) => {
        const types = m?.inferenceTypesSupported;
        // Ids such as `...-v1:0:200k` serve provisioned throughput only.
        return !Array.isArray(types) || types.includes('ON_DEMAND') || types.includes('INFERENCE_PROFILE');
      })
      .map((m) => m?.modelId)
      .filter((id): id is string => typeof id === 'string' && id !== '');
  },
};

/** The channel's key; one saved before keys were checked fails the attempt (another channel may serve). */
function keyOf(ch: ChannelEntry): AwsKey {
  try {
    return parseKey(ch.key);
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
}

/** The model to call: without `-thinking` when the thinking adapter turns that suffix into a setting. */
function modelName(call: UpstreamCall): string {
  return call.model.endsWith(THINKING_SUFFIX) && call.options.bool('claude.thinking_adapter_enabled')
    ? call.model.slice(0, -THINKING_SUFFIX.length)
    : call.model;
}
