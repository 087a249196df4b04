import type { CreateTableBuilder } from 'kysely';
import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../dialect.ts';

/** Adds an auto-increment integer primary key that every engine understands. */
function withId<T extends string>(t: CreateTableBuilder<T, any>, dialect: DialectName) {
  if (dialect === 'sqlite') return t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  if (dialect === 'postgres') return t.addColumn('id', 'bigserial', (c) => c.primaryKey());
  return t.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement());
}

const str = (n: number) => `varchar(${n})` as const;

export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const table = (name: string) => {
    const t = db.schema.createTable(name).ifNotExists();
    return dialect === 'mysql' ? t.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`) : t;
  };
  const index = (name: string, tableName: string, cols: string[], unique = false) => {
    let b = db.schema.createIndex(name).on(tableName).columns(cols);
    if (unique) b = b.unique();
    // MySQL has no CREATE INDEX IF NOT EXISTS; migrations run once so plain create is safe there.
    return dialect === 'mysql' ? b : b.ifNotExists();
  };

  await withId(table('users'), dialect)
    .addColumn('username', str(64), (c) => c.notNull())
    .addColumn('password', str(255), (c) => c.notNull())
    .addColumn('display_name', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('role', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('email', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('github_id', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('oidc_id', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('wechat_id', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('telegram_id', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('linux_do_id', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('access_token', str(64))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('request_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('group', str(64), (c) => c.notNull().defaultTo('default'))
    .addColumn('aff_code', str(32), (c) => c.notNull())
    .addColumn('aff_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('aff_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('aff_history_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('inviter_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('setting', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'bigint')
    .execute();
  await index('idx_users_username', 'users', ['username'], true).execute();
  await index('idx_users_aff_code', 'users', ['aff_code'], true).execute();
  await index('idx_users_access_token', 'users', ['access_token'], true).execute();
  await index('idx_users_email', 'users', ['email']).execute();
  await index('idx_users_inviter', 'users', ['inviter_id']).execute();
  await index('idx_users_github', 'users', ['github_id']).execute();
  await index('idx_users_oidc', 'users', ['oidc_id']).execute();
  await index('idx_users_wechat', 'users', ['wechat_id']).execute();
  await index('idx_users_telegram', 'users', ['telegram_id']).execute();
  await index('idx_users_linuxdo', 'users', ['linux_do_id']).execute();

  await withId(table('tokens'), dialect)
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('key', str(64), (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('accessed_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expired_time', 'bigint', (c) => c.notNull().defaultTo(-1))
    .addColumn('remain_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('unlimited_quota', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model_limits_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('model_limits', 'text')
    .addColumn('allow_ips', 'text')
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('group', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('deleted_at', 'bigint')
    .execute();
  await index('idx_tokens_key', 'tokens', ['key'], true).execute();
  await index('idx_tokens_user', 'tokens', ['user_id']).execute();
  await index('idx_tokens_name', 'tokens', ['name']).execute();

  await withId(table('channels'), dialect)
    .addColumn('type', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('openai_organization', 'text')
    .addColumn('test_model', str(255), (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('weight', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('test_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('response_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('base_url', str(512), (c) => c.notNull().defaultTo(''))
    .addColumn('other', 'text')
    .addColumn('balance', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('balance_updated_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('models', 'text')
    .addColumn('group', str(255), (c) => c.notNull().defaultTo('default'))
    .addColumn('used_quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('model_mapping', 'text')
    .addColumn('status_code_mapping', 'text')
    .addColumn('priority', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('auto_ban', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('other_info', 'text')
    .addColumn('tag', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('setting', 'text')
    .addColumn('param_override', 'text')
    .addColumn('max_input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await index('idx_channels_name', 'channels', ['name']).execute();
  await index('idx_channels_tag', 'channels', ['tag']).execute();

  await table('abilities')
    .addColumn('group', str(64), (c) => c.notNull())
    .addColumn('model', str(191), (c) => c.notNull())
    .addColumn('channel_id', 'bigint', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('priority', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('weight', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('tag', str(191), (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('pk_abilities', ['group', 'model', 'channel_id'])
    .execute();
  await index('idx_abilities_channel', 'abilities', ['channel_id']).execute();

  await table('options')
    .addColumn('key', str(191), (c) => c.primaryKey())
    .addColumn('value', 'text')
    .execute();

  await withId(table('redemptions'), dialect)
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('key', str(64), (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('name', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('redeemed_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('used_user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deleted_at', 'bigint')
    .execute();
  await index('idx_redemptions_key', 'redemptions', ['key'], true).execute();
  await index('idx_redemptions_name', 'redemptions', ['name']).execute();

  await withId(table('logs'), dialect)
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('username', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('token_name', str(128), (c) => c.notNull().defaultTo(''))
    .addColumn('token_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('model_name', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('prompt_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('completion_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('use_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('first_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('is_stream', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('group', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('ip', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('request_id', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('other', 'text')
    .execute();
  // The console filters by time range with at most one of these equalities, newest first.
  await index('idx_logs_created', 'logs', ['created_at', 'id']).execute();
  await index('idx_logs_user_created', 'logs', ['user_id', 'created_at']).execute();
  await index('idx_logs_type_created', 'logs', ['type', 'created_at']).execute();
  await index('idx_logs_token_created', 'logs', ['token_name', 'created_at']).execute();
  await index('idx_logs_model_created', 'logs', ['model_name', 'created_at']).execute();
  await index('idx_logs_channel_created', 'logs', ['channel_id', 'created_at']).execute();
  await index('idx_logs_username_created', 'logs', ['username', 'created_at']).execute();

  await withId(table('midjourneys'), dialect)
    .addColumn('code', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('action', str(40), (c) => c.notNull().defaultTo(''))
    .addColumn('mj_id', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('prompt', 'text')
    .addColumn('prompt_en', 'text')
    .addColumn('description', 'text')
    .addColumn('state', 'text')
    .addColumn('submit_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('finish_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('image_url', 'text')
    .addColumn('status', str(20), (c) => c.notNull().defaultTo(''))
    .addColumn('progress', str(30), (c) => c.notNull().defaultTo(''))
    .addColumn('fail_reason', 'text')
    .addColumn('channel_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('buttons', 'text')
    .addColumn('properties', 'text')
    .execute();
  await index('idx_mj_user_submit', 'midjourneys', ['user_id', 'submit_time']).execute();
  await index('idx_mj_mj_id', 'midjourneys', ['mj_id']).execute();
  await index('idx_mj_submit', 'midjourneys', ['submit_time']).execute();

  await withId(table('tasks'), dialect)
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('task_id', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('platform', str(30), (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('channel_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('action', str(40), (c) => c.notNull().defaultTo(''))
    .addColumn('status', str(20), (c) => c.notNull().defaultTo(''))
    .addColumn('fail_reason', 'text')
    .addColumn('submit_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('finish_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('progress', str(20), (c) => c.notNull().defaultTo(''))
    .addColumn('properties', 'text')
    .addColumn('data', 'text')
    .execute();
  await index('idx_tasks_user_submit', 'tasks', ['user_id', 'submit_time']).execute();
  await index('idx_tasks_task_id', 'tasks', ['task_id']).execute();
  await index('idx_tasks_submit', 'tasks', ['submit_time']).execute();

  await withId(table('top_ups'), dialect)
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('money', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('trade_no', str(191), (c) => c.notNull())
    .addColumn('payment_method', str(32), (c) => c.notNull().defaultTo(''))
    .addColumn('create_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('complete_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', str(32), (c) => c.notNull().defaultTo('pending'))
    .execute();
  await index('idx_topups_trade_no', 'top_ups', ['trade_no'], true).execute();
  await index('idx_topups_user', 'top_ups', ['user_id']).execute();

  await withId(table('quota_data'), dialect)
    .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('username', str(64), (c) => c.notNull().defaultTo(''))
    .addColumn('model_name', str(191), (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('token_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await index('idx_qd_bucket', 'quota_data', ['created_at', 'user_id', 'model_name'], true).execute();
  await index('idx_qd_user_created', 'quota_data', ['user_id', 'created_at']).execute();

  await withId(table('setups'), dialect)
    .addColumn('version', str(50), (c) => c.notNull())
    .addColumn('initialized_at', 'bigint', (c) => c.notNull())
    .execute();
}
