import { z } from 'zod';

/** A user's notification and pricing preferences, stored as JSON text in `users.setting`. */
export interface UserSetting {
  notify_type: 'email' | 'webhook';
  /** Quota left below which the user is warned (default 500000). */
  quota_warning_threshold: number;
  webhook_url: string;
  webhook_secret: string;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
}

export const DEFAULT_USER_SETTING: Readonly<UserSetting> = Object.freeze({
  notify_type: 'email',
  quota_warning_threshold: 500000,
  webhook_url: '',
  webhook_secret: '',
  notification_email: '',
  accept_unset_model_ratio_model: false,
});

const stored = z
  .object({
    notify_type: z.enum(['email', 'webhook']).catch('email'),
    quota_warning_threshold: z
      .number()
      .finite()
      .nonnegative()
      .catch(DEFAULT_USER_SETTING.quota_warning_threshold),
    webhook_url: z.string().catch(''),
    webhook_secret: z.string().catch(''),
    notification_email: z.string().catch(''),
    accept_unset_model_ratio_model: z.boolean().catch(false),
  })
  .partial();

/** Parses the stored text; anything missing or malformed falls back to the defaults field by field. */
export function parseUserSetting(text: string | null | undefined): UserSetting {
  let raw: unknown = {};
  try {
    raw = text ? JSON.parse(text) : {};
  } catch {
    raw = {};
  }
  const r = stored.safeParse(raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {});
  const parsed = r.success ? r.data : {};
  const out: UserSetting = { ...DEFAULT_USER_SETTING };
  for (const [k, v] of Object.entries(parsed))
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}
