/**
 * Usage-log benchmark (`npm run bench:logs`): seeds millions of realistic log rows into SQLite and PostgreSQL,
 * starts the real gateway on each, and times the console's log list, stat and dashboard data calls over HTTP,
 * reporting p50 and p95 per query.
 *
 *   npm run bench:logs -- [--rows 5000000] [--engine sqlite|postgres|both] [--runs 20]
 *   npm run bench:logs -- --measure-only          # time the databases seeded by an earlier run
 *   npm run bench:logs -- --measure-only --only stat
 *   npm run bench:logs -- --seed-only --engine sqlite
 *   npm run bench:logs -- --drop                  # remove the seeded databases
 *
 * SQLite goes to data/bench-logs.db; PostgreSQL to the database `modelgate_bench_logs` (--pg-db) on --pg-url (created and
 * replaced by a seeding run). Not part of `npm test`.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { migrate, openDatabase } from '../../server/src/db/index.ts';
import { type Case, dataCases, logCases } from './cases.ts';
import { seedLogRows, seedLogUsers } from './seed.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '5000000' },
    engine: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '20' },
    'measure-only': { type: 'boolean', default: false },
    'seed-only': { type: 'boolean', default: false },
    only: { type: 'string', default: '' },
    drop: { type: 'boolean', default: false },
    sqlite: { type: 'string', default: 'data/bench-logs.db' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'pg-db': { type: 'string', default: 'modelgate_bench_logs' },
  },
});

const PG_DB = args['pg-db'];
const RUNS = Math.max(1, Number(args.runs));
const LIST_TARGET = 200;
const STAT_TARGET = 500;

interface Target {
  name: 'sqlite' | 'postgres';
  dsn: string;
  sqlitePath: string;
  /** Removes the database; `fresh` then creates an empty one. */
  reset(fresh: boolean): Promise<void>;
}

async function pgAdmin(query: string) {
  const client = new pg.Client({ connectionString: args['pg-url'] });
  await client.connect();
  try {
    await client.query(query);
  } finally {
    await client.end();
  }
}

const targets: Target[] = [
  {
    name: 'sqlite',
    dsn: '',
    sqlitePath: args.sqlite,
    async reset() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${args.sqlite}${suffix}`, { force: true });
    },
  },
  {
    name: 'postgres',
    dsn: Object.assign(new URL(args['pg-url']), { pathname: `/${PG_DB}` }).toString(),
    sqlitePath: '',
    async reset(fresh) {
      await pgAdmin(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
      if (fresh) await pgAdmin(`CREATE DATABASE ${PG_DB}`);
    },
  },
];

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const seconds = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

interface Result {
  name: string;
  kind: Case['kind'];
  p50: number;
  p95: number;
  note: string;
}

async function seed(t: Target) {
  console.log(`\n${t.name}: seeding ${Number(args.rows).toLocaleString('en')} rows (load ${load()})`);
  await t.reset(true);
  const handle = await openDatabase(t.dsn, t.sqlitePath);
  try {
    await migrate(handle);
    await seedLogUsers(handle);
    const t0 = performance.now();
    await seedLogRows(handle, Number(args.rows));
    console.log(`  seeded in ${seconds(t0)}`);
  } finally {
    await handle.close();
  }
}

async function measure(t: Target): Promise<Result[]> {
  // The gateway is loaded only to measure: seeding needs no more than the database code.
  const [
    { buildApp },
    { loadConfig },
    { createContext },
    { issueAccessToken },
    { exportQuotaData },
    { readHourlyMark },
  ] = await Promise.all([
    import('../../server/src/app.ts'),
    import('../../server/src/config.ts'),
    import('../../server/src/context.ts'),
    import('../../server/src/modules/auth/access-token.ts'),
    import('../../server/src/modules/data/export.ts'),
    import('../../server/src/modules/data/mark.ts'),
  ]);
  // A follower does not migrate: the benchmark does, so a new index migration is built on the seeded table.
  const t0 = performance.now();
  const handle = await openDatabase(t.dsn, t.sqlitePath);
  try {
    await migrate(handle);
  } finally {
    await handle.close();
  }
  console.log(`\n${t.name}: migrations checked in ${seconds(t0)}`);
  const config = loadConfig({
    SQL_DSN: t.dsn,
    SQLITE_PATH: t.sqlitePath,
    SESSION_SECRET: 'bench-logs-secret',
    // A follower: no background job touches the seeded table while it is measured.
    NODE_TYPE: 'slave',
    LOG_LEVEL: 'silent',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
  });
  const ctx = await createContext(config, pino({ level: 'silent' }));
  const app = await buildApp(ctx);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

    // Before the first export (a fresh seed, or one made before log_hourly existed) the mark is missing.
    if (!(await readHourlyMark(ctx.logDb.db))) {
      const e0 = performance.now();
      const r = await exportQuotaData(ctx);
      console.log(
        `  dashboard data export (first, full): ${r.buckets.toLocaleString('en')} user buckets, ${r.hourly.toLocaleString('en')} model buckets in ${seconds(e0)}`,
      );
      const e1 = performance.now();
      await exportQuotaData(ctx);
      console.log(`  dashboard data export (next, incremental): ${seconds(e1)}`);
      // What autovacuum does on a live server after a bulk insert: statistics and the visibility map that
      // index-only scans need.
      for (const table of ['quota_data', 'log_hourly'])
        await sql
          .raw(t.name === 'postgres' ? `VACUUM ANALYZE ${table}` : `ANALYZE ${table}`)
          .execute(ctx.db.db);
    }

    const db = ctx.logDb.db;
    const newest = await db
      .selectFrom('logs')
      .select((eb) => eb.fn.max('created_at').as('t'))
      .executeTakeFirstOrThrow();
    const end = Number(newest.t);
    const mid = await db
      .selectFrom('logs')
      .select(['created_at', 'id'])
      .where('created_at', '<=', end - 45 * 86_400)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    const cases = [
      ...logCases(end, { before_time: Number(mid.created_at), before_id: Number(mid.id) }),
      ...dataCases(end),
    ].filter((c) => !args.only || c.name.includes(args.only));

    const headers = new Map<string, Record<string, string>>();
    const as = async (who: Case['as']) => {
      let h = headers.get(who);
      if (!h) {
        const row = await ctx.db.db
          .selectFrom('users')
          .select('id')
          .where('username', '=', who === 'admin' ? 'bench-admin' : who)
          .executeTakeFirstOrThrow();
        const token = await issueAccessToken(ctx, Number(row.id));
        h = { authorization: `Bearer ${token}`, 'new-api-user': String(row.id) };
        headers.set(who, h);
      }
      return h;
    };

    console.log(`  ${cases.length} queries, ${RUNS} timed runs each after one warm-up (load ${load()})\n`);
    console.log('| query | p50 | p95 | answer |');
    console.log('| --- | --- | --- | --- |');
    const results: Result[] = [];
    for (const c of cases) {
      const url = `${base}${c.path}?${new URLSearchParams(Object.entries(c.query).map(([k, v]): [string, string] => [k, String(v)]))}`;
      const h = await as(c.as);
      const times: number[] = [];
      let note = '';
      for (let i = 0; i <= RUNS; i++) {
        const s = performance.now();
        const res = await fetch(url, { headers: h });
        const body = (await res.json()) as { success: boolean; message?: string; data: any };
        const ms = performance.now() - s;
        if (!body.success) throw new Error(`${c.name}: ${res.status} ${body.message}`);
        if (i > 0) times.push(ms);
        const d = body.data;
        note =
          c.kind === 'list'
            ? `${d.items.length} rows, total ${d.total_capped ? `${d.total.toLocaleString('en')}+` : d.total.toLocaleString('en')}`
            : c.kind === 'data'
              ? `${d.length.toLocaleString('en')} buckets`
              : `quota ${d.quota.toLocaleString('en')}`;
      }
      times.sort((a, b) => a - b);
      const r = { name: c.name, kind: c.kind, p50: pct(times, 50), p95: pct(times, 95), note };
      results.push(r);
      const target = c.kind === 'list' ? LIST_TARGET : STAT_TARGET;
      console.log(
        `| ${c.name} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms${r.p95 > target ? ' (over target)' : ''} | ${note} |`,
      );
    }
    console.log(`\n  load average after ${t.name}: ${load()}`);
    return results;
  } finally {
    await app.close();
    await ctx.close();
  }
}

const chosen = targets.filter((t) => args.engine === 'both' || args.engine === t.name);
if (chosen.length === 0) throw new Error(`--engine must be sqlite, postgres or both, not ${args.engine}`);

if (args.drop) {
  for (const t of chosen) await t.reset(false);
  console.log(`removed the seeded ${chosen.map((t) => t.name).join(' and ')} database(s)`);
} else {
  const all = new Map<string, Result[]>();
  for (const t of chosen) {
    if (!args['measure-only']) await seed(t);
    if (!args['seed-only']) all.set(t.name, await measure(t));
  }
  if (args['seed-only']) process.exit(0);
  const over = [...all].flatMap(([engine, rs]) =>
    rs
      .filter((r) => r.p95 > (r.kind === 'list' ? LIST_TARGET : STAT_TARGET))
      .map((r) => `${engine}: ${r.name}`),
  );
  console.log(
    over.length
      ? `\n${over.length} over target (p95 ${LIST_TARGET} ms for lists, ${STAT_TARGET} ms for stat and data):\n  ${over.join('\n  ')}`
      : `\nevery query within target (p95 ${LIST_TARGET} ms for lists, ${STAT_TARGET} ms for stat and data)`,
  );
  process.exitCode = over.length ? 1 : 0;
}
