import type { Insertable } from 'kysely';
import type { ChannelsTable, TokensTable, UsersTable } from '../../src/db/schema.ts';

/**
 * Complete rows of users, tokens and channels for seeding the database straight (tests and benchmarks), every
 * column given so the types stay strict; the fields of `o` override the defaults.
 */

/** An enabled ordinary user in group default with no balance; display name and invite code are the username. */
export function userRow(
  o: Partial<Insertable<UsersTable>> & { username: string; created_at: number },
): Insertable<UsersTable> {
  return {
    password: 'x',
    display_name: o.username,
    role: 1,
    status: 1,
    email: '',
    github_id: '',
    oidc_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    access_token: null,
    quota: 0,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    aff_code: o.username,
    aff_count: 0,
    aff_quota: 0,
    aff_history_quota: 0,
    inviter_id: 0,
    setting: '{}',
    deleted_at: null,
    ...o,
  };
}

/** An enabled token that was never used, never expires and has no quota or limits. */
export function tokenRow(
  o: Partial<Insertable<TokensTable>> & { user_id: number; key: string; name: string; created_time: number },
): Insertable<TokensTable> {
  return {
    status: 1,
    accessed_time: 0,
    expired_time: -1,
    remain_quota: 0,
    unlimited_quota: 0,
    model_limits_enabled: 0,
    model_limits: '',
    allow_ips: '',
    used_quota: 0,
    group: '',
    deleted_at: null,
    ...o,
  };
}

/** An enabled OpenAI channel in group default, auto-ban on, never tested, with no mapping or settings. */
export function channelRow(
  o: Partial<Insertable<ChannelsTable>> & {
    key: string;
    name: string;
    base_url: string;
    models: string;
    created_time: number;
  },
): Insertable<ChannelsTable> {
  return {
    type: 1,
    openai_organization: '',
    test_model: '',
    status: 1,
    weight: 0,
    test_time: 0,
    response_time: 0,
    other: '',
    balance: 0,
    balance_updated_time: 0,
    group: 'default',
    used_quota: 0,
    model_mapping: '',
    status_code_mapping: '',
    priority: 0,
    auto_ban: 1,
    other_info: '',
    tag: '',
    setting: '',
    param_override: '',
    max_input_tokens: 0,
    ...o,
  };
}
