import bcrypt from 'bcryptjs';

/**
 * What the rows of the import tests' new-api and one-api databases share: the model they name, values made
 * the way both projects store them (passwords are bcrypt hashes with Go's `$2a$` prefix and cost 10; keys are
 * 48 characters), and the columns both projects' users, tokens and channels have, as a new row has them.
 */
export const MODEL = 'gpt-4.1-nano-2025-04-14';
export const goHash = (plain: string) => bcrypt.hashSync(plain, 10).replace(/^\$2b\$/, '$2a$');
export const key48 = (c: string) => `${c}${'x7Kq9Zr2'.repeat(6)}`.slice(0, 48);

export const USER_COLUMNS = {
  role: 1,
  status: 1,
  email: '',
  github_id: '',
  oidc_id: '',
  wechat_id: '',
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  inviter_id: 0,
};

/** A token made a day before `now` (Unix seconds). */
export const tokenColumns = (now: number) => ({
  status: 1,
  created_time: now - 86_400,
  expired_time: -1,
  remain_quota: 0,
  unlimited_quota: false,
  used_quota: 0,
});

export const CHANNEL_COLUMNS = {
  status: 1,
  weight: 0,
  test_time: 0,
  response_time: 0,
  base_url: '',
  other: '',
  balance: 0,
  balance_updated_time: 0,
  group: 'default',
  used_quota: 0,
  model_mapping: '',
  priority: 0,
};
