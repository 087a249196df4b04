import type { LogRow } from './store.ts';

/** What every viewer may see of a log row. */
export interface LogItem {
  id: number;
  created_at: number;
  type: number;
  content: string;
  user_id: number;
  username: string;
  token_name: string;
  token_id: number;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  first_time: number;
  is_stream: boolean;
  group: string;
  request_id: string;
  /** JSON text: ratios, cache tokens, mapped model...; `admin_info` only in admin lists. */
  other: string;
}

export interface AdminLogItem extends LogItem {
  channel: number;
  /** Upstream cost in quota at the channel's price (0 on rows logged before costs were recorded). */
  cost: number;
  channel_name: string;
  ip: string;
}

function base(r: LogRow, other: string): LogItem {
  return {
    id: Number(r.id),
    created_at: Number(r.created_at),
    type: r.type,
    content: r.content ?? '',
    user_id: Number(r.user_id),
    username: r.username,
    token_name: r.token_name,
    token_id: Number(r.token_id),
    model_name: r.model_name,
    quota: Number(r.quota),
    prompt_tokens: Number(r.prompt_tokens),
    completion_tokens: Number(r.completion_tokens),
    use_time: Number(r.use_time),
    first_time: Number(r.first_time),
    is_stream: Boolean(r.is_stream),
    group: r.group,
    request_id: r.request_id,
    other,
  };
}

export function adminItem(r: LogRow, channelName: string): AdminLogItem {
  return {
    ...base(r, r.other ?? ''),
    channel: Number(r.channel_id),
    channel_name: channelName,
    ip: r.ip,
    cost: Number(r.cost ?? 0),
  };
}

/** Keys of `other` that reveal how the gateway routed the request; users never see them. */
const ADMIN_ONLY_OTHER = ['admin_info'];

/** A user's own row: no channel, no client ip, no upstream cost, no admin-only billing details. */
export function selfItem(r: LogRow): LogItem {
  return base(r, stripAdminInfo(r.other ?? ''));
}

export function stripAdminInfo(other: string): string {
  if (!other) return '';
  try {
    const parsed = JSON.parse(other);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return '';
    for (const k of ADMIN_ONLY_OTHER) delete parsed[k];
    return JSON.stringify(parsed);
  } catch {
    return '';
  }
}
