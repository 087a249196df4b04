import type { Generated } from 'kysely';

/**
 * Table types. Booleans are stored as integers 0/1 on every engine so reads look the same everywhere;
 * quota-like columns are BIGINT and read back as JS numbers (exact up to 2^53).
 */
/** A periodic budget's columns, on users and on tokens (migration 010, ledger/budget/). */
export interface BudgetTableColumns {
  /** The amount per period, 0 = none. */
  budget_quota: Generated<number>;
  /** daily, weekly, monthly or custom ('' = none). */
  budget_period: Generated<string>;
  /** The length of a custom period in days. */
  budget_period_days: Generated<number>;
  /** One renewal as a local "YYYY-MM-DD HH:mm" (server time zone); the others follow by the period. */
  budget_reset_time: Generated<string>;
  /** Spent in the period that ends at budget_reset_at. */
  budget_used: Generated<number>;
  /** Unix seconds when the period budget_used counts ends; 0 = no budget. */
  budget_reset_at: Generated<number>;
}

export interface UsersTable extends BudgetTableColumns {
  id: Generated<number>;
  username: string;
  password: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  access_token: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  setting: string;
  created_at: number;
  deleted_at: number | null;
  /** Bumped by "log out everywhere"; part of every session's tag. */
  session_version: Generated<number>;
  /** The username NFKC-normalised and lower-cased; unique (users/names.ts). */
  username_key: string | null;
}

export interface TokensTable extends BudgetTableColumns {
  id: Generated<number>;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: number;
  model_limits_enabled: number;
  model_limits: string;
  allow_ips: string;
  used_quota: number;
  group: string;
  deleted_at: number | null;
  /** Requests per minute the token may send; 0 = no limit (migration 012). */
  rpm_limit: Generated<number>;
  /** Tokens per minute the token may use, counted from the hold's estimate and corrected by the usage; 0 = no limit. */
  tpm_limit: Generated<number>;
  /** 1 = the response cache is on for this token's requests (migration 014). */
  response_cache: Generated<number>;
}

export interface ChannelsTable {
  id: Generated<number>;
  type: number;
  key: string;
  openai_organization: string;
  test_model: string;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  auto_ban: number;
  other_info: string;
  tag: string;
  setting: string;
  param_override: string;
  max_input_tokens: number;
  /** Multi-key channels: JSON of the keys that are not enabled, by fingerprint (relay/table-cache/channel-keys.ts). */
  key_status: string | null;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: number;
  priority: number;
  weight: number;
  tag: string;
}

export interface OptionsTable {
  key: string;
  value: string;
}

export interface RedemptionsTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: number;
  created_time: number;
  redeemed_time: number;
  used_user_id: number;
  deleted_at: number | null;
}

export interface LogsTable {
  id: Generated<number>;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  token_id: number;
  model_name: string;
  quota: number;
  /** What the request cost upstream at the channel's price, in quota (0 on rows logged before migration 011). */
  cost: Generated<number>;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  first_time: number;
  is_stream: number;
  channel_id: number;
  group: string;
  ip: string;
  request_id: string;
  other: string;
}

export interface MidjourneysTable {
  id: Generated<number>;
  code: number;
  user_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  description: string;
  state: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  channel_id: number;
  quota: number;
  buttons: string;
  properties: string;
  /** The token charged at submit (0 for none): a refund goes back to it too. */
  token_id: Generated<number>;
  /** The group whose ratio priced the charge. */
  group: Generated<string>;
  /** Unix milliseconds of the last refresh from the upstream. */
  updated_at: Generated<number>;
  /** The client's notifyHook, called with every change when MjNotifyEnabled is on. */
  notify_hook: string | null;
  video_url: string | null;
}

export interface TasksTable {
  id: Generated<number>;
  created_at: number;
  updated_at: number;
  task_id: string;
  platform: string;
  user_id: number;
  channel_id: number;
  quota: number;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  properties: string;
  data: string;
  /** The token charged at submit (0 for none): a refund goes back to it too. */
  token_id: Generated<number>;
  /** The group whose ratio priced the charge. */
  group: Generated<string>;
}

export interface TopUpsTable {
  id: Generated<number>;
  user_id: number;
  amount: number;
  money: number;
  trade_no: string;
  payment_method: string;
  create_time: number;
  complete_time: number;
  status: string;
}

export interface QuotaDataTable {
  id: Generated<number>;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

/**
 * Consumption of one model on one channel in one hour (`created_at`: the hour's first second), summed from the
 * usage log. Buckets exported before migration 011 have channel 0 (unknown) and cost 0.
 */
export interface LogHourlyTable {
  created_at: number;
  model_name: string;
  channel_id: number;
  count: number;
  quota: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
}

export interface SetupsTable {
  id: Generated<number>;
  version: string;
  initialized_at: number;
}

export interface RevokedSessionsTable {
  sid: string;
  /** Unix seconds when the session's cookie would have expired; the row can go then. */
  expires_at: number;
}

/**
 * How far a reader has copied an append-only table: `npm run import` per source database (import/logs.ts), and
 * the hourly export of the usage log (source `hourly-export`, modules/data/mark.ts).
 */
export interface ImportMarksTable {
  source: string;
  entity: string;
  last_id: number;
  updated_at: number;
}

/** The audit log (migration 013, modules/audit/): append-only, chained by hash. */
export interface AuditLogsTable {
  seq: number;
  created_at: number;
  user_id: number;
  username: string;
  role: number;
  ip: string;
  method: string;
  path: string;
  action: string;
  entity: string;
  target: string;
  status: number;
  /** JSON array of AuditChange (modules/audit/diff.ts). */
  changes: string;
  prev_hash: string;
  hash: string;
}

/** One compatibility check of a channel (migration 015). */
export interface ChannelCompatRunsTable {
  id: Generated<number>;
  channel_id: number;
  created_at: number;
  /** The admin who ran it; 0 for a scheduled run. */
  user_id: number;
  trigger: string;
  model: string;
  estimated_quota: number;
  charged_quota: number;
  passed: number;
  failed: number;
  /** JSON: script -> client format -> { verdict, reason }. */
  results: string;
}

/** The usage log's extremes, each from an index end (view, migration 016; on SQLite db/log-chunks/view.ts). */
export interface LogsExtentView {
  max_id: number | null;
  min_created_at: number | null;
  max_created_at: number | null;
}

export interface Database {
  users: UsersTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  options: OptionsTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  logs_extent: LogsExtentView;
  midjourneys: MidjourneysTable;
  tasks: TasksTable;
  top_ups: TopUpsTable;
  quota_data: QuotaDataTable;
  log_hourly: LogHourlyTable;
  setups: SetupsTable;
  revoked_sessions: RevokedSessionsTable;
  import_marks: ImportMarksTable;
  audit_logs: AuditLogsTable;
  channel_compat_runs: ChannelCompatRunsTable;
}
