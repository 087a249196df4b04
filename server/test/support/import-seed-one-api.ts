import { goHash, key48, MODEL, rowWriters } from './import-seed-values.ts';
import type { SourceDatabase } from './import-sources.ts';

/**
 * Rows an operator's one-api database would hold, made up for the import tests: users (one deleted), tokens
 * with model and subnet limits, channels of types that map to other types here (and one with no equivalent),
 * abilities, options, a redemption code, logs.
 */
export const ONE_API = {
  carolPassword: 'carol-password',
  carolQuota: 2_000_000,
  carolKey: key48('C'),
};

export async function seedOneApi(src: SourceDatabase, upstream: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const { user, token, channel } = rowWriters(src, now, {
    users: {
      lark_id: '',
    },
    tokens: {
      accessed_time: now,
      models: '',
      subnet: '',
    },
    channels: {
      created_time: now - 86_400,
      config: '{}',
    },
  });
  await user({
    id: 1,
    username: 'root',
    password: goHash('one-root-pass'),
    role: 100,
    access_token: '0123456789abcdef0123456789abcdef',
    quota: 500_000_000,
    aff_code: 'x1Y2',
  });
  await user({
    id: 2,
    username: 'carol',
    password: goHash(ONE_API.carolPassword),
    access_token: 'fedcba9876543210fedcba9876543210',
    quota: ONE_API.carolQuota,
    used_quota: 5_000,
    request_count: 3,
    aff_code: 'c4R0',
    lark_id: 'ou_lark_carol',
  });
  await user({
    id: 3,
    username: 'dave',
    password: goHash('dave-password'),
    access_token: '00000000000000000000000000000003',
    status: 3,
    aff_code: 'd4v3',
  });

  await token({
    id: 1,
    user_id: 2,
    key: ONE_API.carolKey,
    name: 'cli',
    remain_quota: 400_000,
    models: MODEL,
    subnet: '127.0.0.0/8,::1/128',
  });
  await token({ id: 2, user_id: 3, key: key48('V'), name: 'dave-token', unlimited_quota: true });

  await channel({
    id: 1,
    type: 1,
    key: 'sk-one-upstream',
    name: 'openai',
    base_url: upstream,
    models: MODEL,
  });
  await channel({ id: 2, type: 36, key: 'sk-deepseek-key', name: 'deepseek', models: 'deepseek-chat' });
  await channel({
    id: 3,
    type: 33,
    key: '',
    name: 'bedrock',
    models: 'claude-3-5-sonnet-20240620',
    config:
      '{"region":"us-east-1","ak":"AKIAIOSFODNN7EXAMPLE","sk":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',
  });
  await channel({
    id: 4,
    type: 37,
    key: 'cf-token-0123456789abcdefghijklmnopqrstuv',
    name: 'workers-ai',
    models: '@cf/meta/llama-3.1-8b-instruct',
    config: '{"user_id":"0123456789abcdef0123456789abcdef"}',
  });
  await channel({ id: 5, type: 38, key: 'deepl-key', name: 'deepl', models: 'deepl-zh' });
  await channel({
    id: 6,
    type: 29,
    key: 'gsk-groq',
    name: 'groq',
    models: 'llama3-70b-8192',
    system_prompt: 'Be brief.',
  });

  const ability = (group: string, model: string, channel_id: number) =>
    src.insert('abilities', { group, model, channel_id, enabled: true, priority: 0 });
  await ability('default', MODEL, 1);
  await ability('default', 'deepseek-chat', 2);
  await ability('default', 'deepl-zh', 5);

  await src.insert('options', { key: 'OidcEnabled', value: 'false' });
  await src.insert('options', { key: 'Theme', value: 'berry' });
  await src.insert('options', { key: 'SystemName', value: 'One API' });
  await src.insert('options', { key: 'QuotaPerUnit', value: '500000' });

  await src.insert('redemptions', {
    id: 1,
    user_id: 1,
    key: '9a8b7c6d5e4f30211203f4e5d6c7b8a9',
    status: 1,
    name: 'gift',
    quota: 250_000,
    created_time: now - 100,
    redeemed_time: 0,
  });

  await src.insert('logs', {
    id: 1,
    user_id: 2,
    created_at: now - 200,
    type: 2,
    content: '模型倍率 0.05',
    username: 'carol',
    token_name: 'cli',
    model_name: MODEL,
    quota: 80,
    prompt_tokens: 800,
    completion_tokens: 200,
    channel_id: 1,
    request_id: '20240601101010123456789',
    elapsed_time: 2_500,
    is_stream: false,
    system_prompt_reset: false,
  });
  await src.insert('logs', {
    id: 2,
    user_id: 1,
    created_at: now - 100,
    type: 5,
    content: 'channel test',
    username: 'root',
  });
}
