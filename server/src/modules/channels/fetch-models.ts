import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';
import { providerHttp } from '../../relay/providers/http.ts';
import { adapterFor } from '../../relay/providers/index.ts';
import { MissingBaseUrl } from '../../relay/providers/model-list.ts';
import { openaiAdapter } from '../../relay/providers/openai/index.ts';
import { proxyOf } from './targets.ts';
import { entryOf, type UpstreamTarget } from './upstream.ts';

/**
 * Lists the models an upstream offers, as its provider asks for them (relay/providers: OpenAI's `/v1/models`,
 * Gemini's `/v1beta/models`, ...), through the SSRF guard. Returns sorted, unique names.
 */
export async function fetchUpstreamModels(ctx: AppContext, t: UpstreamTarget): Promise<string[]> {
  const list = (adapterFor(t.type) ?? openaiAdapter).listModels;
  if (!list) throw new ApiError('this channel type cannot list its models');
  try {
    const names = await list(entryOf(t), providerHttp(ctx.options, [t.key], proxyOf(t.setting)));
    return [...new Set(names)].sort();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof MissingBaseUrl) throw new ApiError(err.message);
    throw new ApiError(`failed to fetch models: ${(err as Error).message}`, 502);
  }
}
