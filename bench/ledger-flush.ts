// The main thread's longest event-loop stall and longest synchronous write while the ledger writer flushes
// N settled charges (with their usage log rows) to SQLite, with the writer thread on or off:
//   node --import tsx bench/ledger-flush.ts [rows per flush = 2000] [flushes = 5]
// Run it twice, with SQLITE_WRITER_THREAD=false and without, to compare.
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../server/src/config.ts';
import { createContext } from '../server/src/context.ts';
import { Balance } from '../server/src/ledger/balance.ts';
import { LedgerWriter } from '../server/src/ledger/writer.ts';
import { seedToken, seedUser } from '../server/test/support/relay-seed.ts';

const ROWS = Number(process.argv[2] ?? 2000);
const FLUSHES = Number(process.argv[3] ?? 5);
const USERS = 200;

const dir = mkdtempSync(join(tmpdir(), 'bench-ledger-flush-'));
const config = loadConfig({
  ...process.env,
  SQLITE_PATH: join(dir, 'gateway.db'),
  SESSION_SECRET: 'bench-ledger-flush',
  BATCH_UPDATE_INTERVAL: '3600',
});
const ctx = await createContext(config, pino({ level: 'silent' }));
const writer = new LedgerWriter(ctx);
const accounts: Array<{ userId: number; tokenId: number; user: Balance; token: Balance }> = [];
for (let i = 0; i < USERS; i++) {
  const { id: userId, username } = await seedUser(ctx, { quota: 1e12, username: `bench${i}` });
  const { id: tokenId } = await seedToken(ctx, { userId, remain: 1e12 });
  accounts.push({ userId, tokenId, user: new Balance(1e12), token: new Balance(1e12) });
  void username;
}

function queue(n: number) {
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < n; i++) {
    const a = accounts[Math.floor(USERS * Math.random() ** 2)];
    const quota = 100 + (i % 900);
    a.user.pending += quota;
    a.token.pending += quota;
    writer.push({
      ...a,
      channelId: 1,
      quota,
      countRequest: true,
      log: {
        user_id: a.userId,
        created_at: now,
        type: 2,
        content: '',
        username: `bench${a.userId}`,
        token_name: 'bench',
        token_id: a.tokenId,
        model_name: 'gpt-4o-mini',
        quota,
        cost: 0,
        prompt_tokens: 1200,
        completion_tokens: 300,
        use_time: 2,
        first_time: 400,
        is_stream: 1,
        channel_id: 1,
        group: 'default',
        ip: '127.0.0.1',
        request_id: `req-${i}`,
        other: '{"model_ratio":0.075,"completion_ratio":4}',
      },
    });
  }
}

// Main-thread busy time during the flush (event-loop utilisation), longest gap between two 1 ms timers, and the longest a main-thread write (a console action) waited.
let stall = 0;
let writeWait = 0;
let last = performance.now();
let probing = false;
const probe = setInterval(() => {
  const now = performance.now();
  stall = Math.max(stall, now - last - 1);
  last = now;
  if (probing) return;
  probing = true;
  const t0 = performance.now();
  void sql`update options set value = value where key = ${'bench-probe'}`.execute(ctx.db.db).then(() => {
    writeWait = Math.max(writeWait, performance.now() - t0);
    probing = false;
  });
}, 1);

const rows: string[] = [];
queue(ROWS);
await writer.flush(); // warm-up: statements prepared, the thread started
for (let f = 0; f < FLUSHES; f++) {
  queue(ROWS);
  await new Promise((r) => setTimeout(r, 50));
  stall = 0;
  writeWait = 0;
  last = performance.now();
  const t0 = performance.now();
  const elu0 = performance.eventLoopUtilization();
  await writer.flush();
  const busy = performance.eventLoopUtilization(elu0).active;
  await new Promise((r) => setTimeout(r, 50));
  rows.push(
    `| ${f + 1} | ${(performance.now() - t0 - 50).toFixed(0)} ms | ${busy.toFixed(0)} ms | ${stall.toFixed(1)} ms | ${writeWait.toFixed(1)} ms |`,
  );
}
clearInterval(probe);
const logged = await ctx.db.db
  .selectFrom('logs')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirstOrThrow();
console.log(
  `writer thread ${config.sqliteWriterThread ? 'on' : 'off'}, ${ROWS} rows per flush, load ${loadavg()[0].toFixed(1)}, ${logged.n} log rows`,
);
console.log('| flush | time | main thread busy | longest stall | longest main-thread write wait |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
await ctx.close();
