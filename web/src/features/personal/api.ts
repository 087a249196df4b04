import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';

/** `GET /api/user/self` (the user, without secrets). */
export interface SelfUser {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  group: string;
  email: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code?: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  github_id?: string;
  oidc_id?: string;
  wechat_id?: string;
  telegram_id?: string;
  linux_do_id?: string;
  /** JSON text of the user setting; `webhook_secret_set` replaces the secret itself. */
  setting?: string;
}

export interface UserSetting {
  notify_type: 'email' | 'webhook';
  quota_warning_threshold: number;
  webhook_url: string;
  webhook_secret_set?: boolean;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
}

export const SELF_KEY = ['user', 'self'] as const;

export function useSelf() {
  return useQuery({ queryKey: SELF_KEY, queryFn: () => api.get<SelfUser>('/api/user/self') });
}

export function parseSetting(text: string | undefined): UserSetting {
  let raw: Partial<UserSetting> = {};
  try {
    raw = text ? (JSON.parse(text) as Partial<UserSetting>) : {};
  } catch {
    raw = {};
  }
  return {
    notify_type: raw.notify_type === 'webhook' ? 'webhook' : 'email',
    quota_warning_threshold: Number(raw.quota_warning_threshold ?? 500000),
    webhook_url: raw.webhook_url ?? '',
    webhook_secret_set: !!raw.webhook_secret_set,
    notification_email: raw.notification_email ?? '',
    accept_unset_model_ratio_model: !!raw.accept_unset_model_ratio_model,
  };
}
