import { channelTypeInfo } from '@modelgate/shared';
import type { ChannelEntry } from '../table-cache/channels.ts';
import type { ProviderHttp } from './types.ts';

/** A console call to a channel whose type has no default address and which names none. */
export class MissingBaseUrl extends Error {
  constructor() {
    super('this channel type has no default address; fill in the base URL');
  }
}

/** The channel's base URL without a trailing slash (its type's default when the channel names none). */
export function accountBase(ch: ChannelEntry, fallback = ''): string {
  const base = (ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || fallback).replace(/\/+$/, '');
  if (!base) throw new MissingBaseUrl();
  return base;
}

/**
 * A model list as the account's API answers it: OpenAI's and Anthropic's `{data: [{id}]}`, Google's
 * `{models: [{name: "models/..."}]}`. Throws when the answer holds neither.
 */
export async function listModelsAt(
  http: ProviderHttp,
  url: string,
  headers: Record<string, string>,
): Promise<string[]> {
  const body = (await http(url, { headers })) as {
    data?: Array<{ id?: unknown }>;
    models?: Array<{ name?: unknown }>;
  };
  const items = Array.isArray(body?.models) ? body.models.map((m) => m?.name) : body?.data?.map((m) => m?.id);
  if (!Array.isArray(items)) throw new Error('the upstream reply has no model list');
  return items.map((id) => (typeof id === 'string' ? id.replace(/^models\//, '') : '')).filter(Boolean);
}
