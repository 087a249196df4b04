/**
 * What one usage-log row costs the gateway (`npm run bench:logs:row-cost`): CPU time (user + system, the whole
 * process) per row inserted the way the ledger writer inserts them (ledger/log-insert.ts, one transaction per
 * flush), on SQLite with the default settings, into a log that already holds `--rows` rows, with the rows of
 * `--users` active users interleaved as live traffic writes them. Target: 15 us per row at 200 users and a
 * million rows.
 *
 *   npm run bench:logs:row-cost -- [--rows 1000000] [--users 200] [--flushes 60] [--per-flush 300] [--reseed]
 *                                   [--checkpoint-every N]
 *
 * --checkpoint-every N: WAL checkpoints (PASSIVE) after every Nth flush, counted in that flush's cost, as the
 * gateway's writer thread runs them, instead of SQLite's automatic ones (at 1,000 WAL pages, which a flush of
 * many users' rows passes every time).
 *
 * The seeded log goes to data/bench-row-cost.db and is kept for the next run (each run migrates a copy
 * of it, so a new index migration is measured on the same table as before it). Not part of `npm test`.
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { migrate, openDatabase } from '../../server/src/db/index.ts';
import { noteLiveRows } from '../../server/src/db/log-chunks/rollover.ts';
import { insertLogs, type LogRow } from '../../server/src/ledger/log-insert.ts';
import { MODELS, rng } from './rows.ts';
import { seedLogRows, seedLogUsers } from './seed.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    users: { type: 'string', default: '200' },
    flushes: { type: 'string', default: '60' },
    'per-flush': { type: 'string', default: '300' },
    reseed: { type: 'boolean', default: false },
    path: { type: 'string', default: 'data/bench-row-cost.db' },
    'checkpoint-every': { type: 'string' },
    'chunk-rows': { type: 'string' },
  },
});

const seeded = `${args.path}.seed-${args.rows}`;
const files = (p: string) => ['', '-wal', '-shm'].map((s) => `${p}${s}`);

async function seed() {
  for (const f of files(seeded)) rmSync(f, { force: true });
  const handle = await openDatabase('', seeded);
  try {
    await migrate(handle);
    await seedLogUsers(handle);
    await seedLogRows(handle, Number(args.rows));
    handle.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    await handle.close();
  }
}

/** Live rows: `users` users picked with a skew, each with its tokens, models and channels. */
function liveRows(n: number, users: number, rand: () => number): LogRow[] {
  const now = Math.floor(Date.now() / 1000);
  return Array.from({ length: n }, (_, i) => {
    const user = 1 + Math.floor(users * rand() ** 1.5);
    const channel = 1 + Math.floor(rand() * 20);
    const prompt = Math.floor(rand() * 4000);
    return {
      user_id: user,
      created_at: now,
      type: 2,
      content: '',
      username: `user${user}`,
      token_name: `token-${user}-${Math.floor(rand() * 5)}`,
      token_id: user * 5 + Math.floor(rand() * 5),
      model_name: MODELS[Math.floor(MODELS.length * rand() ** 1.5)],
      quota: Math.round(prompt * 0.3),
      cost: Math.round(prompt * 0.2),
      prompt_tokens: prompt,
      completion_tokens: Math.floor(rand() * 1500),
      use_time: Math.floor(rand() * 30),
      first_time: Math.floor(rand() * 3000),
      is_stream: rand() < 0.4 ? 1 : 0,
      channel_id: channel,
      group: rand() < 0.8 ? 'default' : 'vip',
      ip: `10.0.${user % 256}.${channel}`,
      request_id: `live${i}-${now}`,
      other: '{"model_ratio":0.075,"group_ratio":1,"completion_ratio":4,"frt":420}',
    };
  });
}

async function main() {
  if (args.reseed || !existsSync(seeded)) {
    console.log(`seeding ${Number(args.rows).toLocaleString('en')} rows into ${seeded}`);
    await seed();
  }
  for (const f of files(args.path)) rmSync(f, { force: true });
  copyFileSync(seeded, args.path);

  const handle = await openDatabase('', args.path);
  const t0 = performance.now();
  await migrate(handle);
  console.log(`migrations checked in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const rand = rng(7);
  const perFlush = Number(args['per-flush']);
  const every = Number(args['checkpoint-every'] ?? 0);
  if (every) handle.sqlite?.pragma('wal_autocheckpoint = 0');
  let flushes = 0;
  if (args['chunk-rows']) handle.logChunkRows = Number(args['chunk-rows']);
  let closed = 0;
  const flush = async (rows: LogRow[]) => {
    await handle.db.transaction().execute((trx) => insertLogs(handle, trx, rows));
    if (await noteLiveRows(handle, rows.length)) closed++;
    if (every && ++flushes % every === 0) handle.sqlite?.pragma('wal_checkpoint(PASSIVE)');
  };
  try {
    // Warm-up: the statements are prepared and the newest pages read once, as on a running gateway.
    for (let i = 0; i < 5; i++) await flush(liveRows(perFlush, Number(args.users), rand));
    const perRow: number[] = [];
    let longest = 0;
    for (let i = 0; i < Number(args.flushes); i++) {
      const rows = liveRows(perFlush, Number(args.users), rand);
      const before = process.cpuUsage();
      const started = performance.now();
      await flush(rows);
      longest = Math.max(longest, performance.now() - started);
      const used = process.cpuUsage(before);
      perRow.push((used.user + used.system) / rows.length);
    }
    perRow.sort((a, b) => a - b);
    const mean = perRow.reduce((a, b) => a + b, 0) / perRow.length;
    const p = (q: number) => perRow[Math.min(perRow.length - 1, Math.floor(q * perRow.length))];
    console.log(
      `row cost, ${Number(args.rows).toLocaleString('en')} rows, ${args.users} users, ${args.flushes} flushes of ${perFlush}: ` +
        `mean ${mean.toFixed(1)} us, median ${p(0.5).toFixed(1)} us, p90 ${p(0.9).toFixed(1)} us of CPU per row (load ${loadavg()[0].toFixed(1)})`,
    );
    console.log(
      `  ${closed} chunk(s) closed and indexed within the run; longest flush ${longest.toFixed(0)} ms`,
    );
  } finally {
    await handle.close();
    for (const f of files(args.path)) rmSync(f, { force: true });
  }
}

await main();
