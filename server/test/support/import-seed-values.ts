import bcrypt from 'bcryptjs';
import type { SourceDatabase } from './import-sources.ts';

/**
 * What the rows of the import tests' new-api and one-api databases share: the model they name, values made
 * the way both projects store them (passwords are bcrypt hashes with Go's `$2a$` prefix and cost 10; keys are
 * 48 characters), and the columns both projects' users, tokens and channels have, as a new row has them
 * (alphabetical).
 */
export const MODEL = 'gpt-4.1-nano-2025-04-14';
export const goHash = (plain: string) => bcrypt.hashSync(plain, 10).replace(/^\$2b\$/, '$2a$');
export const key48 = (c: string) => `${c}${'x7Kq9Zr2'.repeat(6)}`.slice(0, 48);

const USER_COLUMNS = {
  email: '',
  github_id: '',
  group: 'default',
  inviter_id: 0,
  oidc_id: '',
  quota: 0,
  request_count: 0,
  role: 1,
  status: 1,
  used_quota: 0,
  wechat_id: '',
};

/** A token made a day before `now` (Unix seconds). */
const tokenColumns = (now: number) => ({
  status: 1,
  created_time: now - 86_400,
  expired_time: -1,
  remain_quota: 0,
  unlimited_quota: false,
  used_quota: 0,
});

const CHANNEL_COLUMNS = {
  balance: 0,
  balance_updated_time: 0,
  base_url: '',
  group: 'default',
  model_mapping: '',
  other: '',
  priority: 0,
  response_time: 0,
  status: 1,
  test_time: 0,
  used_quota: 0,
  weight: 0,
};

type Row = Record<string, unknown>;

/**
 * Writers of `src`'s users, tokens and channels: each row over the columns both projects have and the flavour's
 * own ones (`own`), as a new row has them, so that a call names only what it sets. A user's display name is its
 * username unless the row sets one.
 */
export function rowWriters(
  src: SourceDatabase,
  now: number,
  own: { users: Row; tokens: Row; channels: Row },
) {
  const writer = (table: string, blank: Row) => (row: Row) => src.insert(table, { ...blank, ...row });
  return {
    user: (row: Row) =>
      src.insert('users', { display_name: row.username, ...USER_COLUMNS, ...own.users, ...row }),
    token: writer('tokens', { ...tokenColumns(now), ...own.tokens }),
    channel: writer('channels', { ...CHANNEL_COLUMNS, ...own.channels }),
  };
}
