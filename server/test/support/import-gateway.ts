import OpenAI from 'openai';
import { runImport } from '../../src/import/run.ts';
import type { DATABASES, TestDatabase } from './databases.ts';
import { perDescribe } from './describe-gateway.ts';
import { seedNewApi } from './import-seed-new-api.ts';
import { seedOneApi } from './import-seed-one-api.ts';
import { MODEL } from './import-seed-values.ts';
import { type Flavor, makeSource, type SourceEngine } from './import-sources.ts';
import { startMockUpstream } from './mock-upstream.ts';
import { flushLedger } from './relay-seed.ts';
import type { startServer, TestServer } from './server.ts';

/** The source engine and the gateway's own engine of each import run: like for like, and SQLite into PostgreSQL. */
export function importPairs(databases: typeof DATABASES) {
  const engineOf = (name: string) => databases.find((d) => d.name === name) ?? databases[0];
  const pairs: Array<{ engine: SourceEngine; target: TestDatabase; available: boolean }> = [
    { engine: 'sqlite', target: databases[0], available: true },
    { engine: 'mysql', target: engineOf('mysql'), available: engineOf('mysql').available },
    { engine: 'sqlite', target: engineOf('postgres'), available: engineOf('postgres').available },
  ];
  return pairs;
}

/** The tables the import writes. */
const TABLES = [
  'users',
  'tokens',
  'channels',
  'abilities',
  'options',
  'redemptions',
  'top_ups',
  'logs',
] as const;

const SEEDS: Record<Flavor, typeof seedNewApi> = { 'new-api': seedNewApi, 'one-api': seedOneApi };

/**
 * For one describe block (set up in its beforeAll): a mock upstream, a source database of `flavor` on
 * `engine` filled with the seed rows (its channels call the mock), and a fresh gateway on `target` (SQLite by
 * default) to import into. The test file passes `startServer` in, so that the file says it starts a gateway.
 */
export function importGateway(
  start: typeof startServer,
  flavor: Flavor,
  engine: SourceEngine,
  target?: TestDatabase,
) {
  return perDescribe(async (closeAfter) => {
    const mock = closeAfter(await startMockUpstream());
    const src = closeAfter(await makeSource(flavor, engine));
    await SEEDS[flavor](src, mock.url);
    const server: TestServer = closeAfter(await start(target ? { db: target } : {}));
    const { db } = server.ctx.db;
    /** Every row of the tables the import writes, as JSON, to compare the gateway's database before and after. */
    const snapshot = async () => {
      const out: Record<string, string> = {};
      for (const t of TABLES) {
        const rows = await db.selectFrom(t).selectAll().execute();
        out[t] = JSON.stringify(rows.map((r) => JSON.stringify(r)).sort());
      }
      return out;
    };
    return {
      mock,
      src,
      server,
      snapshot,
      /** A chat completion of MODEL through the gateway, with the official client on `apiKey`. */
      chat: (apiKey: string, content: string) =>
        new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }).chat.completions.create({
          model: MODEL,
          messages: [{ role: 'user', content }],
        }),
      /** Runs the import again once the ledger has written everything: its report, and the rows before and after. */
      async runAgain() {
        await flushLedger(server.ctx);
        const before = await snapshot();
        const report = await runImport(server.ctx, { from: src.from, logs: true });
        return { report, before, after: await snapshot() };
      },
      async count(table: (typeof TABLES)[number]) {
        const { n } = await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        return Number(n);
      },
    };
  });
}
