import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type CountingUpstream, startCountingUpstream } from './support/counting-upstream.ts';
import { DATABASES, redisUp } from './support/databases.ts';
import type { ClientFormat } from './support/format-clients.ts';
import { startInstances } from './support/instances.ts';
import {
  accountLimitedBy,
  ask,
  isRefusal,
  type Limit,
  ledgerOf,
  leftOf,
  MODEL,
} from './support/money-cases.ts';
import { seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The money invariant through real servers: hundreds of requests at once, in the four client formats, JSON and
 * streamed, against an upstream that reports 0.5x to 10x the prompt the gateway expected, with the balance,
 * the token's quota, the user's budget or the token's budget as the binding limit. No limit ends more than one
 * request's charge below zero, and the account reconciles to the unit: what it started with = what is left +
 * its usage log rows.
 */
interface Case {
  format: ClientFormat;
  stream: boolean;
  factor: number;
  limit: Limit;
  image?: boolean;
}

const FORMATS: ClientFormat[] = ['openai', 'anthropic', 'gemini', 'responses'];
const LIMITS: Limit[] = ['balance', 'token', 'user_budget', 'token_budget'];
const FACTORS = [0.5, 1, 2, 5, 10];

/** Every format with every limit; factors and streaming rotate so that each meets every format. */
const ALL: Case[] = FORMATS.flatMap((format, f) =>
  LIMITS.map((limit, l) => ({
    format,
    limit,
    stream: (f + l) % 2 === 1,
    factor: FACTORS[(f + 2 * l) % FACTORS.length],
  })),
);
/** Images: the chat path used to count none of them. */
const IMAGES: Case[] = FORMATS.map((format, f) => ({
  format,
  limit: LIMITS[f],
  stream: f % 2 === 0,
  factor: 2,
  image: true,
}));
/** On PostgreSQL and MySQL: every format once, far above the estimate. */
const SERVER_DBS: Case[] = FORMATS.map((format, f) => ({
  format,
  limit: LIMITS[(f + 1) % 4],
  stream: f % 2 === 1,
  factor: f % 2 ? 10 : 5,
}));

/** Two instances sharing Redis: the requests alternate between them. */
const SHARED: Case[] = [
  { format: 'openai', stream: true, factor: 10, limit: 'balance' },
  { format: 'anthropic', stream: false, factor: 5, limit: 'token_budget' },
  { format: 'gemini', stream: true, factor: 2, limit: 'user_budget' },
  { format: 'responses', stream: false, factor: 10, limit: 'token' },
];

const AMOUNT = 5_000;
const CONCURRENCY = 200;
const name = (c: Case) =>
  `${c.format} ${c.stream ? 'stream' : 'json'}, upstream ${c.factor}x${c.image ? ' with images' : ''}, ${c.limit} binds`;

for (const engine of DATABASES) {
  const cases = engine.name === 'sqlite' ? [...ALL, ...IMAGES] : SERVER_DBS;
  describe.skipIf(!engine.available)(`money invariant on ${engine.name}`, () => {
    let server: TestServer;
    let upstream: CountingUpstream;

    beforeAll(async () => {
      upstream = await startCountingUpstream();
      server = await startServer({ db: engine, env: { BATCH_UPDATE_INTERVAL: '0.2' } });
      await seedChannel(server.ctx, { baseUrl: upstream.url, key: 'sk-counting', models: [MODEL] });
    });
    afterAll(async () => {
      await server?.close();
      await upstream?.close();
    });

    it.each(cases.map((c) => [name(c), c] as const))('%s', async (_, c) => {
      await race(c, upstream, [server]);
    });
  });
}

describe.skipIf(!(await redisUp()))('money invariant on two instances sharing Redis', () => {
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let upstream: CountingUpstream;

  beforeAll(async () => {
    upstream = await startCountingUpstream();
    cluster = await startInstances(2);
    await seedChannel(cluster.nodes[0].ctx, { baseUrl: upstream.url, key: 'sk-counting', models: [MODEL] });
    for (const node of cluster.nodes) await relayState(node.ctx).channels.reload();
  });
  afterAll(async () => {
    await cluster?.close();
    await upstream?.close();
  });

  it.each(SHARED.map((c) => [name(c), c] as const))('%s', async (_, c) => {
    await race(c, upstream, cluster.nodes);
  });
});

/** One race: CONCURRENCY requests spread over `nodes`, then the bound and the reconciliation. */
async function race(c: Case, upstream: CountingUpstream, nodes: TestServer[]) {
  upstream.factor = c.factor;
  // What a provider charges for a small image at high detail; the gateway expects 255 and bounds 2,500.
  upstream.imageTokens = c.image ? 765 : 0;
  const account = await accountLimitedBy(nodes[0].ctx, c.limit, AMOUNT);
  const results = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, i) =>
      ask(nodes[i % nodes.length].url, account.apiKey, c.format, { i, stream: c.stream, image: c.image }),
    ),
  );
  const ok = results.filter((r) => r.status === 200).length;
  const refused = results.filter((r) => isRefusal(c.format, c.limit, r));
  expect(
    ok + refused.length,
    `${name(c)}: every answer is a success or a refusal in the caller's protocol`,
  ).toBe(CONCURRENCY);
  expect(ok, name(c)).toBeGreaterThan(0);
  expect(refused.length, `${name(c)}: the limit binds`).toBeGreaterThan(0);

  // A request is settled just after its answer is sent (with Redis, after one more round trip): wait for the
  // rows of every answered request, or fail with what was written by then.
  let l = await ledgerOf(nodes, account);
  for (const deadline = Date.now() + 10_000; l.rows < ok && Date.now() < deadline; )
    l = await ledgerOf(nodes, account);
  expect(l.rows, name(c)).toBe(ok);
  // No limit ends more than one request's charge below zero.
  expect(leftOf(c.limit, AMOUNT, l), name(c)).toBeGreaterThanOrEqual(-l.maxCharge);
  // Every unit is accounted for, on the user, the token and the budgets alike.
  expect(l.user.used, name(c)).toBe(l.sum);
  expect(l.token.used, name(c)).toBe(l.sum);
  if (c.limit === 'balance') expect(l.user.quota + l.sum).toBe(AMOUNT);
  if (c.limit === 'token') expect(l.token.remain + l.sum).toBe(AMOUNT);
  if (c.limit === 'user_budget') expect(l.user.budget).toBe(l.sum);
  if (c.limit === 'token_budget') expect(l.token.budget).toBe(l.sum);
}
