import { DEFAULT_QUOTA_PER_UNIT } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import { readJson, readString, writeJson, writeString } from './storage.ts';

/** The `/api/status` object. Every field may be missing on an older server. */
export interface Status {
  setup?: boolean;
  root_init?: boolean;
  database_type?: string;
  system_name?: string;
  logo?: string;
  footer_html?: string;
  version?: string;
  /** Whether the server has a release URL for the version check. */
  version_check?: boolean;
  start_time?: number;
  quota_per_unit?: number;
  display_in_currency?: boolean;
  display_token_stat?: boolean;
  enable_drawing?: boolean;
  enable_task?: boolean;
  enable_data_export?: boolean;
  data_export_default_time?: string;
  default_collapse_sidebar?: boolean;
  mj_notify_enabled?: boolean;
  chats?: Array<Record<string, string>>;
  chat_link?: string;
  chat_link2?: string;
  docs_link?: string;
  server_address?: string;
  top_up_link?: string;
  price?: number;
  min_topup?: number;
  self_use_mode_enabled?: boolean;
  demo_site_enabled?: boolean;
  password_login?: boolean;
  password_register?: boolean;
  register_enabled?: boolean;
  turnstile_check?: boolean;
  turnstile_site_key?: string;
  email_verification?: boolean;
  github_oauth?: boolean;
  github_client_id?: string;
  oidc_enabled?: boolean;
  oidc_client_id?: string;
  oidc_authorization_endpoint?: string;
  linuxdo_oauth?: boolean;
  linuxdo_client_id?: string;
  wechat_login?: boolean;
  wechat_qrcode?: string;
  telegram_oauth?: boolean;
  telegram_bot_name?: string;
  [key: string]: unknown;
}

export const STATUS_KEY = 'status';
export const STATUS_QUERY_KEY = ['status'] as const;

/** Status fields that are also kept as separate local-storage keys. */
const MIRRORED = [
  'system_name',
  'logo',
  'footer_html',
  'quota_per_unit',
  'display_in_currency',
  'enable_drawing',
  'enable_task',
  'enable_data_export',
  'chats',
  'data_export_default_time',
  'mj_notify_enabled',
  'docs_link',
] as const;

function mirror(status: Status) {
  writeJson(STATUS_KEY, status);
  for (const key of MIRRORED) {
    const value = status[key];
    if (value === undefined || value === null) writeString(key, null);
    else writeString(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  // The sidebar's collapse state starts from the server default and is then the user's own choice.
  if (readString('default_collapse_sidebar') === null && status.default_collapse_sidebar !== undefined) {
    writeString('default_collapse_sidebar', String(!!status.default_collapse_sidebar));
  }
}

export function cachedStatus(): Status | undefined {
  return readJson<Status | undefined>(STATUS_KEY, undefined);
}

export async function fetchStatus(): Promise<Status> {
  const status = await api.get<Status>('/api/status');
  mirror(status);
  return status;
}

/**
 * The server's status object: the last copy from local storage paints at once, the live one follows.
 * `status` is `{}` until something is known; `isFetched` tells whether the live copy arrived.
 */
export function useStatus() {
  const query = useQuery({
    queryKey: STATUS_QUERY_KEY,
    queryFn: fetchStatus,
    placeholderData: cachedStatus,
    staleTime: 60_000,
    // the layout says "unable to connect" once; no second toast from the query cache
    meta: { silent: true },
  });
  return {
    status: query.data ?? ({} as Status),
    isFetched: query.isFetched && !query.isPlaceholderData,
    isError: query.isError,
    refetch: query.refetch,
  };
}

/** Whether the server accepts password sign-ups. */
export function registrationOpen(status: Status): boolean {
  return status.register_enabled !== false && status.password_register !== false;
}

/** Whether to offer sign-up links: registration open and not in self-use mode. */
export function canRegister(status: Status): boolean {
  return !status.self_use_mode_enabled && registrationOpen(status);
}

export function quotaPerUnitOf(status: Status): number {
  const n = Number(status.quota_per_unit);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_QUOTA_PER_UNIT;
}
