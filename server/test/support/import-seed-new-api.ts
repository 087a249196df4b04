import { goHash, key48, MODEL, rowWriters } from './import-seed-values.ts';
import type { SourceDatabase } from './import-sources.ts';

/**
 * Rows an operator's new-api database would hold, made up for the import tests: users (one whose name differs
 * from alice's only in width), tokens, channels (a multi-key pool, a type with no equivalent, Azure), abilities,
 * options, redemption codes, top-ups, logs.
 */
export const NEW_API = {
  rootPassword: 'root-password-1',
  alicePassword: 'alice-password',
  aliceQuota: 5_000_000,
  aliceKey: key48('A'),
  rootKey: key48('R'),
  accessToken: 'f0e1d2c3b4a5968778695a4b3c2d1e0f',
};

export async function seedNewApi(src: SourceDatabase, upstream: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const { user, token, channel } = rowWriters(src, now, {
    users: {
      discord_id: '',
      telegram_id: '',
      linux_do_id: '',
      aff_count: 0,
      aff_quota: 0,
      aff_history: 0,
      setting: '',
    },
    tokens: {
      accessed_time: now - 60,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      group: '',
      cross_group_retry: false,
    },
    channels: {
      created_time: now - 7 * 86_400,
      status_code_mapping: '',
      auto_ban: 1,
      other_info: '',
      tag: '',
      setting: '',
      param_override: '',
      header_override: '',
      channel_info:
        '{"is_multi_key":false,"multi_key_size":0,"multi_key_status_list":null,"multi_key_polling_index":0,"multi_key_mode":""}',
      settings: '',
    },
  });
  await user({
    id: 1,
    username: 'root',
    password: goHash(NEW_API.rootPassword),
    role: 100,
    display_name: 'Root User',
    access_token: NEW_API.accessToken,
    quota: 100_000_000,
    aff_code: 'R00t',
  });
  await user({
    id: 2,
    username: 'alice',
    password: goHash(NEW_API.alicePassword),
    email: 'alice@example.com',
    github_id: '1234567',
    quota: NEW_API.aliceQuota,
    used_quota: 987_654,
    request_count: 42,
    aff_code: 'AbC1',
    aff_quota: 2_000,
    aff_history: 5_000,
    inviter_id: 1,
    setting: '{"notify_type":"email","quota_warning_threshold":100000}',
  });
  await user({
    id: 3,
    username: 'bob',
    password: goHash('bob-password'),
    quota: 700,
    aff_code: 'bOb3',
    deleted_at: '2024-06-01 10:00:00.000',
    discord_id: '99887766',
  });
  // A different name in new-api (and in MySQL's collation), the same account name as alice here (NFKC).
  await user({ id: 4, username: 'ａｌｉｃｅ', password: goHash('another-one'), aff_code: 'Zz99' });

  await token({
    id: 1,
    user_id: 2,
    key: NEW_API.aliceKey,
    name: 'laptop',
    remain_quota: 1_000_000,
    model_limits_enabled: true,
    model_limits: `${MODEL},gpt-4o-mini`,
  });
  await token({ id: 2, user_id: 1, key: NEW_API.rootKey, name: 'ops', unlimited_quota: true });
  await token({ id: 3, user_id: 99, key: key48('G'), name: 'ghost' });
  await token({ id: 4, user_id: 2, key: key48('D'), name: 'old', deleted_at: '2024-05-01 08:00:00.000' });

  await channel({
    id: 1,
    type: 1,
    key: 'sk-upstream-one',
    name: 'openai-main',
    base_url: upstream,
    models: `${MODEL},gpt-4o-mini`,
    group: 'default,vip',
    priority: 10,
    weight: 5,
    model_mapping: '{"gpt-4o-mini":"gpt-4o-mini-2024-07-18"}',
    tag: 'primary',
    setting: '{"force_format":false,"thinking_to_content":false,"proxy":""}',
    used_quota: 123_456,
  });
  await channel({
    id: 2,
    type: 1,
    key: 'sk-pool-a\nsk-pool-b\nsk-pool-c',
    name: 'pool',
    base_url: upstream,
    models: 'gpt-4o',
    channel_info:
      '{"is_multi_key":true,"multi_key_size":3,"multi_key_status_list":{"1":3},"multi_key_disabled_reason":{"1":"insufficient_quota"},"multi_key_disabled_time":{"1":1717000000},"multi_key_polling_index":0,"multi_key_mode":"polling"}',
  });
  await channel({ id: 3, type: 55, key: 'sk-sora', name: 'sora', models: 'sora-2' });
  await channel({
    id: 4,
    type: 3,
    key: 'azure-key-0123456789',
    name: 'azure',
    base_url: 'https://example-resource.openai.azure.com',
    other: '2024-10-21',
    models: 'gpt-4o',
    status: 3,
    header_override: '{"X-Team":"ml"}',
  });

  const ability = (group: string, model: string, channel_id: number) =>
    src.insert('abilities', { group, model, channel_id, enabled: true, priority: 0, weight: 0, tag: '' });
  for (const g of ['default', 'vip']) for (const m of [MODEL, 'gpt-4o-mini']) await ability(g, m, 1);
  await ability('default', 'gpt-4o', 2);
  await ability('default', 'gpt-4o', 4);
  await ability('default', 'retired-model', 1);
  await ability('default', 'sora-2', 3);

  const option = (key: string, value: string) => src.insert('options', { key, value });
  await option('QuotaPerUnit', '500000');
  await option('SystemName', 'Acme AI');
  await option('GroupRatio', '{"default":1,"vip":0.8}');
  await option('ModelRatio', `{"${MODEL}":0.05,"gpt-4o-mini":0.075}`);
  await option('SMTPToken', 'smtp-secret-value');
  await option('general_setting.quota_display_type', 'TOKENS');
  await option('console_setting.api_info', '[]');
  await option('RetryTimes', 'three');

  const redemption = (row: Record<string, unknown>) =>
    src.insert('redemptions', {
      user_id: 1,
      status: 1,
      quota: 100_000,
      created_time: now - 3_600,
      redeemed_time: 0,
      used_user_id: 0,
      expired_time: 0,
      ...row,
    });
  await redemption({ id: 1, key: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', name: 'welcome' });
  await redemption({
    id: 2,
    key: '0f9e8d7c6b5a49382716a5b4c3d2e1f0',
    name: 'used',
    status: 3,
    redeemed_time: now - 60,
    used_user_id: 2,
  });
  await redemption({ id: 3, key: '11112222333344445555666677778888', name: 'promo', expired_time: now - 10 });

  await src.insert('top_ups', {
    id: 1,
    user_id: 2,
    amount: 10,
    money: 73,
    trade_no: 'USR2NO20240601',
    payment_method: 'alipay',
    create_time: now - 600,
    complete_time: now - 590,
    status: 'success',
  });
  await src.insert('top_ups', {
    id: 2,
    user_id: 99,
    amount: 5,
    money: 36.5,
    trade_no: 'USR99NO1',
    payment_method: 'wxpay',
    create_time: now - 500,
    complete_time: 0,
    status: 'pending',
  });

  const log = (row: Record<string, unknown>) =>
    src.insert('logs', {
      user_id: 2,
      created_at: now - 300,
      username: 'alice',
      token_name: '',
      model_name: '',
      quota: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 0,
      is_stream: false,
      channel_id: 0,
      token_id: 0,
      group: 'default',
      ip: '',
      other: '',
      ...row,
    });
  await log({ id: 1, type: 1, content: '通过兑换码充值 $0.200000 额度' });
  await log({
    id: 2,
    type: 2,
    content: '模型倍率 0.05',
    token_name: 'laptop',
    token_id: 1,
    model_name: MODEL,
    quota: 150,
    prompt_tokens: 1000,
    completion_tokens: 500,
    use_time: 2,
    is_stream: true,
    channel_id: 1,
    other: '{"model_ratio":0.05}',
  });
  await log({ id: 3, type: 6, content: 'refund' });
  await src.insert('setups', { id: 1, version: 'v0.9.0', initialized_at: now - 30 * 86_400 });
}
