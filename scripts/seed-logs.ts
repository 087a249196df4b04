/**
 * Fills the usage-log table with realistic rows and times the console's common log queries.
 *
 *   node --import tsx scripts/seed-logs.ts --rows 5000000 [--dsn <SQL_DSN>] [--sqlite data/seed-logs.db]
 *   node --import tsx scripts/seed-logs.ts --measure-only [--dsn ...]
 *
 * Rows go in with multi-row INSERTs, many per transaction. Without --dsn the target is a SQLite file.
 * The measured queries are the ones GET /api/log/ runs (page + capped total), through the same store code.
 */
import { parseArgs } from 'node:util';
import { type Insertable, sql } from 'kysely';
import { migrate, openDatabase } from '../server/src/db/index.ts';
import type { LogsTable } from '../server/src/db/schema.ts';
import type { LogFilter } from '../server/src/modules/logs/filters.ts';
import { listLogs, statLogs } from '../server/src/modules/logs/store.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    dsn: { type: 'string', default: '' },
    sqlite: { type: 'string', default: 'data/seed-logs.db' },
    'measure-only': { type: 'boolean', default: false },
    runs: { type: 'string', default: '5' },
  },
});

const USERS = 1000;
const MODELS = [
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
const DAYS = 90;

/** A small deterministic generator so two runs make the same table. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeRow(i: number, total: number, start: number, rand: () => number): Insertable<LogsTable> {
  // Skewed like real traffic: a few heavy users and models, most rows are consumption.
  const user = 1 + Math.floor(USERS * rand() ** 2);
  const model = MODELS[Math.floor(MODELS.length * rand() ** 1.5)];
  const roll = rand();
  const type = roll < 0.95 ? 2 : roll < 0.96 ? 1 : roll < 0.97 ? 3 : roll < 0.98 ? 4 : 5;
  const prompt = Math.floor(rand() * 4000);
  const completion = Math.floor(rand() * 1500);
  const channel = 1 + Math.floor(rand() * 20);
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

async function seed(handle: Awaited<ReturnType<typeof openDatabase>>, rows: number) {
  // Parameters per statement stay under every engine's limit (SQLite 32766, PostgreSQL 65535).
  const perInsert = 1000;
  const perTransaction = 20_000;
  const start = Math.floor(Date.now() / 1000) - DAYS * 86_400;
  const rand = rng(42);
  const began = Date.now();
  for (let done = 0; done < rows; ) {
    const upto = Math.min(rows, done + perTransaction);
    await handle.db.transaction().execute(async (trx) => {
      for (let i = done; i < upto; i += perInsert) {
        const batch = [];
        for (let j = i; j < Math.min(upto, i + perInsert); j++) batch.push(makeRow(j, rows, start, rand));
        await trx.insertInto('logs').values(batch).execute();
      }
    });
    done = upto;
    if (done % 500_000 === 0 || done === rows) {
      const s = (Date.now() - began) / 1000;
      console.log(
        `${done.toLocaleString()} rows in ${s.toFixed(0)} s (${Math.round(done / s).toLocaleString()} rows/s)`,
      );
    }
  }
  // What autovacuum would do on a live server: fresh statistics and a visibility map for index-only scans.
  if (handle.dialect === 'postgres') await sql`VACUUM ANALYZE logs`.execute(handle.db);
  else if (handle.dialect === 'sqlite') await sql`ANALYZE logs`.execute(handle.db);
  else await sql`ANALYZE TABLE logs`.execute(handle.db);
}

async function measure(handle: Awaited<ReturnType<typeof openDatabase>>, runs: number) {
  const newest = await handle.db
    .selectFrom('logs')
    .select((eb) => eb.fn.max('created_at').as('t'))
    .executeTakeFirstOrThrow();
  const end = Number(newest.t);
  const cases: Array<[string, LogFilter]> = [
    ['first page, no filter', {}],
    ['by user (user_id, a heavy user)', { user_id: 1 }],
    ['by user (user_id, a light user)', { user_id: 900 }],
    ['by username (admin filter)', { username: 'user500' }],
    ['by token name', { token_name: 'token-3-1' }],
    ['by model', { model_name: 'grok-2' }],
    ['by type (errors)', { type: 5 }],
    ['by time range (today)', { start_timestamp: end - 86_400, end_timestamp: end }],
    [
      'user + time range (self page default)',
      { user_id: 7, start_timestamp: end - 86_400, end_timestamp: end },
    ],
    ['model + time range', { model_name: 'gpt-4o', start_timestamp: end - 86_400, end_timestamp: end }],
  ];
  console.log(`\n${handle.dialect}: page of 10 + capped total (median of ${runs} runs)`);
  for (const [name, f] of cases) {
    const times: number[] = [];
    let total = 0;
    let capped = false;
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      const res = await listLogs(handle, f, 1, 10);
      times.push(performance.now() - t0);
      total = res.total;
      capped = res.capped;
    }
    times.sort((a, b) => a - b);
    console.log(
      `| ${name} | ${times[Math.floor(runs / 2)].toFixed(1)} ms | ${capped ? `${total.toLocaleString()}+` : total.toLocaleString()} |`,
    );
  }
  for (const [name, f] of [
    ['stat, today', { start_timestamp: end - 86_400, end_timestamp: end }],
    ['stat, one user, today', { user_id: 7, start_timestamp: end - 86_400, end_timestamp: end }],
    ['stat, one user, all time', { user_id: 900 }],
  ] as Array<[string, LogFilter]>) {
    const t0 = performance.now();
    await statLogs(handle, f, end);
    console.log(`| ${name} | ${(performance.now() - t0).toFixed(1)} ms | stat |`);
  }
}

const handle = await openDatabase(args.dsn, args.sqlite);
try {
  await migrate(handle);
  if (!args['measure-only']) await seed(handle, Number(args.rows));
  await measure(handle, Number(args.runs));
} finally {
  await handle.close();
}
