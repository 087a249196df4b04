import type { Insertable } from 'kysely';
import type { LogsTable } from '../../server/src/db/schema.ts';

/** The shape of the seeded usage log: who, which models, how many days back from now. */
export const USERS = 1000;
export const MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'claude-3-5-sonnet',
  'claude-3-haiku',
  'gemini-2.0-flash',
  'deepseek-chat',
  'o3-mini',
  'mistral-large',
  'grok-2',
  'qwen-max',
  'glm-4',
  'moonshot-v1-8k',
];
export const DAYS = 90;
export const CHANNELS = 20;

/** A small deterministic generator so two runs make the same table. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Row `i` of `total`, spread evenly in time over DAYS days from `start` (unix seconds). */
export function makeRow(i: number, total: number, start: number, rand: () => number): Insertable<LogsTable> {
  // Skewed like real traffic: a few heavy users and models, most rows are consumption.
  const user = 1 + Math.floor(USERS * rand() ** 2);
  const model = MODELS[Math.floor(MODELS.length * rand() ** 1.5)];
  const roll = rand();
  const type = roll < 0.95 ? 2 : roll < 0.96 ? 1 : roll < 0.97 ? 3 : roll < 0.98 ? 4 : 5;
  const prompt = Math.floor(rand() * 4000);
  const completion = Math.floor(rand() * 1500);
  const channel = 1 + Math.floor(rand() * CHANNELS);
  return {
    user_id: user,
    created_at: start + Math.floor((i / total) * DAYS * 86_400),
    type,
    content: type === 2 ? '' : 'seeded',
    username: `user${user}`,
    token_name: `token-${user}-${Math.floor(rand() * 3)}`,
    token_id: user * 3,
    model_name: type === 2 || type === 5 ? model : '',
    quota: type === 2 ? Math.round((prompt + completion * 4) * 0.075) : 0,
    prompt_tokens: prompt,
    completion_tokens: completion,
    use_time: Math.floor(rand() * 30),
    first_time: Math.floor(rand() * 3000),
    is_stream: rand() < 0.7 ? 1 : 0,
    channel_id: channel,
    group: rand() < 0.8 ? 'default' : 'vip',
    ip: `10.0.${user % 256}.${channel}`,
    request_id: `seed${i}`,
    other: JSON.stringify({
      model_ratio: 0.075,
      group_ratio: 1,
      completion_ratio: 4,
      cache_tokens: 0,
      frt: 420,
      admin_info: { use_channel: [String(channel)] },
    }),
  };
}
