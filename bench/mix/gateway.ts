import { copyFileSync, existsSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createContext } from '../../server/src/context.ts';
import { migrate, openDatabase } from '../../server/src/db/index.ts';
import { chunkNumbers } from '../../server/src/db/log-chunks/layout.ts';
import { StallWatch } from '../../server/src/infra/metrics/stall-watch.ts';
import { lowerRuntimeThreadsPriority } from '../../server/src/infra/os/thread-priority.ts';
import { hashPassword } from '../../server/src/modules/auth/password.ts';
import { exportQuotaData } from '../../server/src/modules/data/export.ts';
import { runRetention } from '../../server/src/modules/retention/job.ts';
import { relayState } from '../../server/src/relay/relay-state.ts';
import { channelRow, tokenRow, userRow } from '../../server/test/support/account-rows.ts';
import { seedLogRows } from '../logs/seed.ts';
import { sampleAllocations } from './heap-sample.ts';
import { traceSlowQueries, traceSlowStatements } from './slow-sql.ts';
import { CHANNELS, MODEL_RATIOS, TOKENS_PER_USER, tokenKey, USERS } from './traffic.ts';

// As server/src/main.ts does first: Node's own threads run below the event loop.
lowerRuntimeThreadsPriority();

/**
 * The gateway of the mix benchmark, in its own process: SQLite with its defaults, a usage log that already
 * holds MIX_LOG_ROWS rows (300,000; seeded once and copied), 200 users with five tokens each, a channel per
 * format on the benchmark upstream and 12 priced models. Answers the harness over IPC: CPU time, memory and the
 * longest event-loop stall since the previous ask; runs the dashboard export and the retention pass on demand
 * (as their timers would); reconciles the balances with the usage log at the end.
 */
const upstream = process.env.BENCH_UPSTREAM as string;
const logRows = Number(process.env.MIX_LOG_ROWS ?? 300_000);
const dir = mkdtempSync(join(tmpdir(), 'gw-mix-'));
const path = join(dir, 'mix.db');

// The seeded log is the slow part (indexes rebuilt, ANALYZE): made once per row count, then copied.
const seeded = join(tmpdir(), `modelgate-mix-seed-${logRows}.db`);
if (!existsSync(seeded)) {
  const temp = `${seeded}.${process.pid}.tmp`;
  const handle = await openDatabase('', temp);
  await migrate(handle);
  await seedLogRows(handle, logRows, () => {});
  await handle.close();
  renameSync(temp, seeded);
}
copyFileSync(seeded, path);

const config = loadConfig({
  SQLITE_PATH: path,
  SESSION_SECRET: 'bench-secret',
  LOG_LEVEL: 'silent',
  BATCH_UPDATE_INTERVAL: '1',
  // The harness logs in in bursts from 127.0.0.1.
  CRITICAL_RATE_LIMIT: '1000000',
  GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
  // MIX_SYNC_FREQUENCY=<s>: how often users' snapshots are reread and expired sessions pruned (a write on the
  // main connection); at 1 s that write always meets the writer thread's lock when a log chunk closes.
  ...(process.env.MIX_SYNC_FREQUENCY ? { SYNC_FREQUENCY: process.env.MIX_SYNC_FREQUENCY } : {}),
});
const ctx = await createContext(config);
let phase = 'relay';
if (process.env.MIX_SLOW_SQL && ctx.db.sqlite)
  traceSlowStatements(ctx.db.sqlite, Number(process.env.MIX_SLOW_SQL), () => phase);
if (process.env.MIX_SLOW_SQL)
  traceSlowQueries(ctx.db.db.getExecutor(), Number(process.env.MIX_SLOW_SQL), () => phase);
const db = ctx.db.db;
const now = Math.floor(Date.now() / 1000);
const seededTop = await db.selectFrom('logs_extent').select('max_id as id').executeTakeFirst();
// The seeded log names users 1..1000; the mix's users are new rows after them.
const password = await hashPassword('mix-password');
const users = Array.from({ length: USERS }, (_, i) =>
  userRow({ username: `mix${i}`, password, quota: 1e12, created_at: now }),
);
for (let i = 0; i < users.length; i += 50)
  await db
    .insertInto('users')
    .values(users.slice(i, i + 50))
    .execute();
const ids = await db
  .selectFrom('users')
  .select(['id', 'username'])
  .where('username', 'like', 'mix%')
  .execute();
const idOf = new Map(ids.map((u) => [u.username, Number(u.id)]));
const tokens = Array.from({ length: USERS * TOKENS_PER_USER }, (_, i) =>
  tokenRow({
    user_id: idOf.get(`mix${Math.floor(i / TOKENS_PER_USER)}`) as number,
    key: tokenKey(i),
    name: `mix-token-${i}`,
    created_time: now,
    accessed_time: now,
    remain_quota: 1e12,
  }),
);
for (let i = 0; i < tokens.length; i += 100)
  await db
    .insertInto('tokens')
    .values(tokens.slice(i, i + 100))
    .execute();
for (const c of CHANNELS)
  await db
    .insertInto('channels')
    .values(
      channelRow({
        type: c.type,
        key: 'sk-upstream',
        name: `mix-${c.format}`,
        models: c.models.join(','),
        base_url: upstream,
        auto_ban: 0,
        created_time: now,
      }),
    )
    .execute();
await ctx.options.set('ModelRatio', JSON.stringify(MODEL_RATIOS));
const app = await buildApp(ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();

const stalls = new StallWatch();
const heapSample = process.env.MIX_HEAP_SAMPLE
  ? await sampleAllocations(process.env.MIX_HEAP_SAMPLE)
  : undefined;
process.send?.({
  port: typeof addr === 'object' && addr ? addr.port : 0,
  rssMb: process.memoryUsage().rss / 1048576,
});

const sum = async (q: Promise<{ s: unknown } | undefined>) => Number((await q)?.s ?? 0);
process.on('message', async (msg: { cmd: string; id?: number }) => {
  const reply = (m: object) => process.send?.({ ...m, id: msg.id });
  if (msg.cmd === 'stats') {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    reply({
      cpuUs: cpu.user + cpu.system,
      rssMb: mem.rss / 1048576,
      heapMb: mem.heapTotal / 1048576,
      externalMb: mem.external / 1048576,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      stallMs: stalls.take() * 1000,
      chunks: ctx.logDb.sqlite ? chunkNumbers(ctx.logDb.sqlite) : [],
    });
  }
  if (msg.cmd === 'background') {
    // What the timers start five and ten minutes after start: the dashboard export (its first run builds the
    // buckets of the whole seeded log) and a retention pass deleting the rows older than 89 days (about 3,300).
    const started = performance.now();
    await ctx.options.set('LogRetentionDays', '89');
    phase = 'export';
    await exportQuotaData(ctx);
    const exportMs = performance.now() - started;
    phase = 'retention';
    const purge = await runRetention(ctx);
    phase = 'relay';
    reply({ exportMs, retentionMs: performance.now() - started - exportMs, purged: purge.logs });
  }
  if (msg.cmd === 'reconcile') {
    await relayState(ctx).writer.flush();
    const from = Number(seededTop?.id ?? 0);
    const logged = await sum(
      ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum('quota').as('s'))
        .where('id', '>', from)
        .where('type', '=', 2)
        .executeTakeFirst(),
    );
    const used = await sum(
      db
        .selectFrom('users')
        .select((eb) => eb.fn.sum('used_quota').as('s'))
        .where('username', 'like', 'mix%')
        .executeTakeFirst(),
    );
    const tokenUsed = await sum(
      db
        .selectFrom('tokens')
        .select((eb) => eb.fn.sum('used_quota').as('s'))
        .executeTakeFirst(),
    );
    const rows = await sum(
      ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.countAll().as('s'))
        .where('id', '>', from)
        .executeTakeFirst(),
    );
    reply({ logged, used, tokenUsed, rows });
  }
  if (msg.cmd === 'stop') {
    await heapSample?.();
    await app.close();
    await ctx.close();
    process.exit(0);
  }
});
