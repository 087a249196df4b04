/**
 * Rows the benchmarks seed straight into the database, every column given (so the table types stay strict):
 * an enabled user, a token that never expires, an enabled channel. `now` is the creation time, in seconds.
 */

/** A user in group default, role 1 and a balance of 1e12 unless told; the invite code is the name unless told. */
export function benchUser(o: {
  username: string;
  now: number;
  password?: string;
  quota?: number;
  role?: number;
  affCode?: string;
}) {
  return {
    username: o.username,
    password: o.password ?? 'x',
    display_name: o.username,
    role: o.role ?? 1,
    status: 1,
    email: '',
    github_id: '',
    oidc_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    access_token: null,
    quota: o.quota ?? 1e12,
    used_quota: 0,
    request_count: 0,
    group: 'default',
    aff_code: o.affCode ?? o.username,
    aff_count: 0,
    aff_quota: 0,
    aff_history_quota: 0,
    inviter_id: 0,
    setting: '{}',
    created_at: o.now,
    deleted_at: null,
  };
}

/** An enabled token of 1e12 quota, no limits, that never expires. */
export function benchToken(o: { userId: number; key: string; name: string; now: number }) {
  return {
    user_id: o.userId,
    key: o.key,
    status: 1,
    name: o.name,
    created_time: o.now,
    accessed_time: o.now,
    expired_time: -1,
    remain_quota: 1e12,
    unlimited_quota: 0,
    model_limits_enabled: 0,
    model_limits: '',
    allow_ips: '',
    used_quota: 0,
    group: '',
    deleted_at: null,
  };
}

/** A channel of `type` in group default on the benchmark upstream at `baseUrl`, with the key sk-upstream. */
export function benchChannel(o: {
  type: number;
  name: string;
  models: string;
  baseUrl: string;
  autoBan: boolean;
  now: number;
}) {
  return {
    type: o.type,
    key: 'sk-upstream',
    openai_organization: '',
    test_model: '',
    status: 1,
    name: o.name,
    weight: 0,
    created_time: o.now,
    test_time: 0,
    response_time: 0,
    base_url: o.baseUrl,
    other: '',
    balance: 0,
    balance_updated_time: 0,
    models: o.models,
    group: 'default',
    used_quota: 0,
    model_mapping: '',
    status_code_mapping: '',
    priority: 0,
    auto_ban: o.autoBan ? 1 : 0,
    other_info: '',
    tag: '',
    setting: '',
    param_override: '',
    max_input_tokens: 0,
  };
}
