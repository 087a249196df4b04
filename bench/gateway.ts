import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/src/app.ts';
import { loadConfig } from '../server/src/config.ts';
import { createContext } from '../server/src/context.ts';
import { lowerRuntimeThreadsPriority } from '../server/src/infra/os/thread-priority.ts';
import { channelRow, tokenRow, userRow } from '../server/test/support/account-rows.ts';

// As server/src/main.ts does first: Node's own threads run below the event loop.
lowerRuntimeThreadsPriority();

/**
 * The gateway under benchmark, in its own process so its CPU time and memory are its own: a fresh SQLite
 * database, one user with an unlimited token, an OpenAI and an Anthropic channel pointing at the benchmark upstream. Auth, routing,
 * billing and usage logging are all on. Answers the parent's {cmd:'stats'} with CPU time and peak RSS.
 */
const upstream = process.env.BENCH_UPSTREAM as string;
const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
const config = loadConfig({
  SQLITE_PATH: join(dir, 'bench.db'),
  SESSION_SECRET: 'bench-secret',
  LOG_LEVEL: 'silent',
  BATCH_UPDATE_INTERVAL: '1',
});
const ctx = await createContext(config);
const now = Math.floor(Date.now() / 1000);
await ctx.db.db
  .insertInto('users')
  .values(userRow({ username: 'bench', quota: 1e12, created_at: now }))
  .execute();
const key = 'benchbenchbenchbenchbenchbenchbenchbenchbenchbenc';
await ctx.db.db
  .insertInto('tokens')
  .values(
    tokenRow({ user_id: 1, key, name: 'bench', created_time: now, accessed_time: now, remain_quota: 1e12 }),
  )
  .execute();
const channel = (type: number, name: string, models: string) =>
  ctx.db.db
    .insertInto('channels')
    .values(channelRow({ type, key: 'sk-upstream', name, models, base_url: upstream, created_time: now }))
    .execute();
await channel(1, 'bench-openai', 'gpt-4o-mini');
await channel(14, 'bench-anthropic', 'claude-bench');
// The Anthropic rows' model has no built-in price.
await ctx.options.set('ModelRatio', JSON.stringify({ 'claude-bench': 1.5 }));
const app = await buildApp(ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
process.send?.({
  port: typeof addr === 'object' && addr ? addr.port : 0,
  key: `sk-${key}`,
  idleRssMb: process.memoryUsage().rss / 1048576,
});
const session = new Session();
process.on('message', async (msg: { cmd: string }) => {
  // Run with --expose-gc by the benchmark, for its closing heap figure.
  if (msg.cmd === 'gc') (globalThis as { gc?: () => void }).gc?.();
  if (msg.cmd === 'profile-start') {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
    process.send?.({});
  }
  if (msg.cmd === 'heap-start') {
    session.connect();
    // Every allocation sampled, the ones young collections freed included: what each request allocates.
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    process.send?.({});
  }
  if (msg.cmd === 'heap-stop') {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    mkdirSync(`${process.env.BENCH_PROFILE}`, { recursive: true });
    writeFileSync(`${process.env.BENCH_PROFILE}/gateway.heapprofile`, JSON.stringify(profile));
    process.send?.({});
  }
  if (msg.cmd === 'profile-stop') {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(`${process.env.BENCH_PROFILE}`, { recursive: true });
    writeFileSync(`${process.env.BENCH_PROFILE}/gateway.cpuprofile`, JSON.stringify(profile));
    process.send?.({});
  }
  if (msg.cmd === 'stats') {
    const cpu = process.cpuUsage();
    process.send?.({
      cpuUs: cpu.user + cpu.system,
      maxRssKb: process.resourceUsage().maxRSS,
      heapUsedMb: process.memoryUsage().heapUsed / 1048576,
    });
  }
  if (msg.cmd === 'logs') {
    await ctx.db.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    const row = await ctx.logDb.db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.send?.({ logs: Number(row.n) });
  }
  if (msg.cmd === 'stop') {
    await app.close();
    await ctx.close();
    process.exit(0);
  }
});
