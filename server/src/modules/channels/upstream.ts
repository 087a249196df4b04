import { channelTypeInfo } from '@modelgate/shared';
import type { Selectable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ChannelsTable } from '../../db/schema.ts';
import { sideCallDispatcher } from '../../infra/proxy.ts';
import { adminUrlPolicy, guardedFetch } from '../../infra/ssrf.ts';
import { type ChannelEntry, toEntry } from '../../relay/cache/channels.ts';
import { scrub } from '../../relay/errors.ts';
import type { UpstreamFailure } from './health.ts';

/** How the console reaches a channel's upstream (tests, model lists, balances): base URL, auth headers. */
export interface UpstreamTarget {
  type: number;
  baseUrl: string;
  key: string;
  organization?: string;
  other?: string;
  /** The channel's setting JSON (region, API version...). */
  setting?: string;
}

/** A target as the channel entry a provider adapter reads. */
export function entryOf(t: UpstreamTarget): ChannelEntry {
  return toEntry({
    id: 0,
    type: t.type,
    name: '',
    key: t.key,
    base_url: t.baseUrl,
    other: t.other ?? '',
    openai_organization: t.organization ?? '',
    setting: t.setting ?? '',
    status: 1,
    priority: 0,
    weight: 1,
    auto_ban: 0,
    models: '',
    group: '',
    model_mapping: null,
    status_code_mapping: null,
    param_override: null,
    test_model: null,
  } as unknown as Selectable<ChannelsTable>);
}

export function baseUrlOf(type: number, baseUrl: string): string {
  return (baseUrl || channelTypeInfo(type)?.defaultBaseUrl || '').replace(/\/+$/, '');
}

/** The first key of a channel (batch-created channels hold one; older multi-line keys use the first line). */
export const firstKey = (key: string) => key.split(/\r?\n/)[0]?.trim() ?? '';

export function authHeaders(t: UpstreamTarget): Record<string, string> {
  if (t.type === 14) return { 'x-api-key': t.key, 'anthropic-version': '2023-06-01' };
  if (t.type === 24) return { 'x-goog-api-key': t.key };
  if (t.type === 3) return { 'api-key': t.key };
  const h: Record<string, string> = { authorization: `Bearer ${t.key}` };
  if (t.type === 1 && t.organization) h['openai-organization'] = t.organization;
  return h;
}

export interface UpstreamReply {
  ok: boolean;
  status: number;
  body: unknown;
  failure?: UpstreamFailure;
}

/** Reads an OpenAI- or Anthropic-style error object out of a failed reply. */
export function failureOf(status: number, body: unknown, text: string): UpstreamFailure {
  const err = (body as { error?: unknown } | undefined)?.error;
  if (err && typeof err === 'object') {
    const e = err as { message?: unknown; type?: unknown; code?: unknown };
    return {
      status,
      message: typeof e.message === 'string' ? e.message : JSON.stringify(err),
      type: typeof e.type === 'string' ? e.type : null,
      code: typeof e.code === 'string' || typeof e.code === 'number' ? e.code : null,
    };
  }
  if (typeof err === 'string') return { status, message: err };
  return { status, message: text.slice(0, 300) || `HTTP ${status}` };
}

/** One request to an upstream through the SSRF guard; JSON in, JSON (or an error description) out. */
export async function callUpstream(
  ctx: AppContext,
  url: string,
  init: {
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: unknown;
    timeoutMs?: number;
    /** Texts (the channel key) that must not come back in an error message, even if the upstream echoes them. */
    secrets?: string[];
    /** The channel's `setting.proxy` ('' for a direct call). */
    proxy?: string;
  },
): Promise<UpstreamReply> {
  const policy = adminUrlPolicy(ctx.options);
  const res = await guardedFetch(url, {
    policy,
    proxy: init.proxy ? sideCallDispatcher(init.proxy, policy) : undefined,
    method: init.method ?? 'GET',
    headers: {
      accept: 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    timeoutMs: init.timeoutMs,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const failure = failureOf(res.status, body, text);
    failure.message = scrub(failure.message ?? '', init.secrets ?? []);
    return { ok: false, status: res.status, body, failure };
  }
  if (body === undefined)
    return {
      ok: false,
      status: res.status,
      body,
      failure: { status: res.status, message: 'upstream reply is not JSON' },
    };
  return { ok: true, status: res.status, body };
}
