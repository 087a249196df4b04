import { ChannelType } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { providerHttp } from '../../relay/providers/http.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { proxyOf } from './targets.ts';
import { authHeaders, baseUrlOf, callUpstream, entryOf, type UpstreamTarget } from './upstream.ts';

/**
 * Lists the models an upstream offers (`GET <base>/v1/models`; Gemini's own `/v1beta/models`), through the SSRF guard. Returns sorted, unique names.
 */
export async function fetchUpstreamModels(ctx: AppContext, t: UpstreamTarget): Promise<string[]> {
  const own = adapterFor(t.type)?.listModels;
  if (own) {
    try {
      const names = await own(entryOf(t), providerHttp(ctx.options, [t.key], proxyOf(t.setting)));
      return [...new Set(names)].sort();
    } catch (err) {
      throw new ApiError(`failed to fetch models: ${(err as Error).message}`, 502);
    }
  }
  const base = baseUrlOf(t.type, t.baseUrl);
  if (!base) throw new ApiError('this channel type has no default address; fill in the base URL');
  const path =
    t.type === ChannelType.Gemini
      ? '/v1beta/models?pageSize=1000'
      : t.type === ChannelType.Azure
        ? '/openai/models?api-version=2024-10-21'
        : '/v1/models';
  const reply = await callUpstream(ctx, `${base}${path}`, {
    headers: authHeaders(t),
    timeoutMs: 20_000,
    secrets: [t.key],
    proxy: proxyOf(t.setting),
  });
  if (!reply.ok)
    throw new ApiError(
      `failed to fetch models: upstream answered ${reply.status}: ${reply.failure?.message ?? ''}`.trim(),
      502,
    );
  // Google lists `{models:[{name:"models/..."}]}`; OpenAI and Anthropic `{data:[{id}]}`.
  const body = reply.body as { data?: Array<{ id?: unknown }>; models?: Array<{ name?: unknown }> };
  const data = Array.isArray(body?.models) ? body.models.map((m) => ({ id: m?.name })) : body?.data;
  if (!Array.isArray(data))
    throw new ApiError('failed to fetch models: the upstream reply has no model list', 502);
  const names = data
    .map((m) => (typeof m?.id === 'string' ? m.id.replace(/^models\//, '') : ''))
    .filter(Boolean);
  return [...new Set(names)].sort();
}
