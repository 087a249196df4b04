import type { Insertable } from 'kysely';
import type { LogsTable } from '../../src/db/schema.ts';
import { consumeLogRow } from './console-rows.ts';
import type { TestServer } from './server.ts';

/**
 * Usage log rows for the hourly bucket tests (log-hourly*.test.ts): random rows and console ranges from a
 * seeded generator, and what the stat and the dashboard must answer for them, summed here from the rows.
 */
export const HOUR = 3600;
export const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-haiku', 'deepseek-chat'];

/** A small deterministic generator, so a failing range can be replayed. */
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

export type Row = Insertable<LogsTable>;

/** Rows of every type, models and users, at random seconds between `from` and `to`. */
export function randomRows(rand: () => number, n: number, from: number, to: number): Row[] {
  return Array.from({ length: n }, () => {
    const roll = rand();
    const type = roll < 0.8 ? 2 : roll < 0.85 ? 1 : roll < 0.9 ? 4 : 5;
    const user = 1 + Math.floor(rand() * 5);
    return consumeLogRow({
      user_id: user,
      username: `user${user}`,
      token_name: `token-${user}`,
      created_at: from + Math.floor(rand() * (to - from)),
      type,
      model_name: type === 1 ? '' : MODELS[Math.floor(rand() * MODELS.length)],
      quota: type === 2 ? Math.floor(rand() * 5000) : type === 1 ? 100_000 : 0,
      prompt_tokens: Math.floor(rand() * 900),
      completion_tokens: Math.floor(rand() * 300),
      channel_id: 1 + Math.floor(rand() * 3),
      group: rand() < 0.3 ? 'vip' : 'default',
    });
  });
}

export interface Filter {
  start_timestamp?: number;
  end_timestamp?: number;
  model_name?: string;
  type?: number;
  username?: string;
}

/** What the plain query answers: consumption rows under the filter, summed here from the rows themselves. */
export function expectedStat(rows: Row[], f: Filter) {
  const hit = rows.filter(
    (r) =>
      r.type === 2 &&
      (!f.start_timestamp || r.created_at >= f.start_timestamp) &&
      (!f.end_timestamp || r.created_at <= f.end_timestamp) &&
      (!f.model_name || r.model_name === f.model_name) &&
      (!f.username || r.username === f.username),
  );
  const quota = hit.reduce((s, r) => s + Number(r.quota), 0);
  const prompt = hit.reduce((s, r) => s + Number(r.prompt_tokens), 0);
  const completion = hit.reduce((s, r) => s + Number(r.completion_tokens), 0);
  return { quota, prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The dashboard's all-users rows (model x hour), summed here from the rows. */
export function expectedDashboard(rows: Row[], start: number, end: number) {
  const buckets = new Map<
    string,
    { model_name: string; created_at: number; count: number; quota: number; token_used: number }
  >();
  for (const r of rows) {
    const hour = r.created_at - (r.created_at % HOUR);
    if (r.type !== 2 || (start && hour < start) || (end && hour > end)) continue;
    const key = `${hour}|${r.model_name}`;
    const b = buckets.get(key) ?? {
      model_name: r.model_name,
      created_at: hour,
      count: 0,
      quota: 0,
      token_used: 0,
    };
    b.count += 1;
    b.quota += Number(r.quota);
    b.token_used += Number(r.prompt_tokens) + Number(r.completion_tokens);
    buckets.set(key, b);
  }
  return [...buckets.values()]
    .sort((a, b) => a.created_at - b.created_at || (a.model_name < b.model_name ? -1 : 1))
    .map((b) => ({ id: 0, user_id: 0, username: '', ...b }));
}

/** A range the console could send: aligned hours, a second off them, anywhere, or open at either end. */
export function randomRange(rand: () => number, from: number, to: number): Filter {
  const at = () => {
    const t = from + Math.floor(rand() * (to - from));
    const kind = rand();
    if (kind < 0.25) return t - (t % HOUR);
    if (kind < 0.4) return t - (t % HOUR) - 1;
    if (kind < 0.5) return t - (t % HOUR) + 1;
    return t;
  };
  let start = rand() < 0.15 ? 0 : at();
  let end = rand() < 0.15 ? 0 : at();
  if (start && end && start > end) [start, end] = [end, start];
  const f: Filter = {};
  if (start) f.start_timestamp = start;
  if (end) f.end_timestamp = end;
  if (rand() < 0.35) f.model_name = MODELS[Math.floor(rand() * MODELS.length)];
  // The stat counts consumption whatever type is asked for.
  if (rand() < 0.2) f.type = 5;
  return f;
}

export const query = (f: Filter) =>
  new URLSearchParams(Object.entries(f).map(([k, v]): [string, string] => [k, String(v)])).toString();

/** The rows in statements of 400, in one transaction. */
export async function insertRows(db: TestServer['ctx']['logDb'], rows: Row[]) {
  await db.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 400)
      await trx
        .insertInto('logs')
        .values(rows.slice(i, i + 400))
        .execute();
  });
}
