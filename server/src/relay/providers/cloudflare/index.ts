import { channelTypeInfo } from '@modelgate/shared';
import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import type { ProviderAdapter, ProviderHttp, UpstreamCall } from '../types.ts';

/** Cloudflare account ids: 32 hex digits. */
export const ACCOUNT_ID = /^[0-9a-f]{32}$/i;
/** API tokens: letters, digits, `-` and `_` (40 of them today). */
const TOKEN = /^[A-Za-z0-9_-]{30,}$/;
/** Model-search pages read at most (100 models a page). */
const MAX_PAGES = 20;
/** The tasks whose models the OpenAI-compatible endpoints serve. */
const SERVED_TASKS = new Set(['Text Generation', 'Text Embeddings']);

/**
 * Workers AI's base, `.../client/v4/accounts/<id>/ai`, built from the channel's `account_id` setting (or its
 * `other` field). A base URL that already names the account (`/accounts/`), or an AI Gateway's workers-ai URL,
 * is used as it is, without a trailing `/v1`.
 */
export function aiBase(ch: ChannelEntry): string {
  const base = (
    ch.baseUrl ||
    channelTypeInfo(ch.type)?.defaultBaseUrl ||
    'https://api.cloudflare.com'
  ).replace(/\/+$/, '');
  if (/\/accounts\/|\/workers-ai(\/|$)/.test(base)) return base.replace(/\/v1$/, '');
  const setting = typeof ch.setting.account_id === 'string' ? ch.setting.account_id.trim() : '';
  const id = setting || ch.other.trim();
  if (!ACCOUNT_ID.test(id))
    throw new RelayError(
      500,
      `channel #${ch.id} needs its Cloudflare account id (32 hex digits) in the account_id setting`,
      'new_api_error',
      'channel_setting_invalid',
      null,
      false,
    );
  return `${base}/client/v4/accounts/${id}/ai`;
}

/**
 * Cloudflare Workers AI (type 39): OpenAI's chat completions and embeddings at `<aiBase>/v1/...`, with an API
 * token as Bearer. The console's model list comes from the account's model search.
 */
export const cloudflareAdapter: ProviderAdapter = {
  name: 'cloudflare',
  formatFor: () => 'openai',
  modes: new Set(['embeddings']),
  checkKey(key) {
    if (!TOKEN.test(key.trim()))
      throw new Error(
        'Cloudflare keys must be an API token with the Workers AI permission (about 40 letters, digits, - or _)',
      );
  },
  url: (ch: ChannelEntry, call: UpstreamCall) => `${aiBase(ch)}${call.path}`,
  headers: (ch: ChannelEntry) => ({ authorization: `Bearer ${ch.key}` }),
  streamUsage: () => true,
  async listModels(ch: ChannelEntry, http: ProviderHttp) {
    const names: string[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = (await http(`${aiBase(ch)}/models/search?per_page=100&page=${page}`, {
        headers: { authorization: `Bearer ${ch.key}` },
      })) as { result?: Array<{ name?: unknown; task?: { name?: unknown } }> };
      const result = Array.isArray(answer?.result) ? answer.result : [];
      for (const m of result) {
        const task = typeof m?.task?.name === 'string' ? m.task.name : '';
        if (typeof m?.name === 'string' && (!task || SERVED_TASKS.has(task))) names.push(m.name);
      }
      if (result.length < 100) break;
    }
    return names;
  },
};
