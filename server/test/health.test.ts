import { Agent, request } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadiness } from '../src/infra/health/readiness.ts';
import { pendingCaches, relayState } from '../src/relay/relay-state.ts';
import { ChannelCache } from '../src/relay/table-cache/channels.ts';
import { DATABASES, pgAdmin, REDIS_URL, redisUp } from './support/databases.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const probe = async (url: string, path: string, init?: RequestInit) => {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
};

/**
 * /healthz answers while the process lives; /readyz only while the databases (and Redis) answer and the relay's
 * caches have loaded, and never during a shutdown. Both stay outside rate limits and the console.
 */
describe('health probes', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      env: { GLOBAL_WEB_RATE_LIMIT_ENABLE: 'true', GLOBAL_WEB_RATE_LIMIT: '2' },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('/healthz is 200, /readyz 200 with its checks; HEAD and query strings too; no limit, no console headers', async () => {
    for (let i = 0; i < 5; i++) {
      const live = await probe(server.url, '/healthz');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      expect(live.headers.get('content-type')).toContain('application/json');
      expect(live.headers.get('cache-control')).toBe('no-store');
      expect(live.headers.get('content-security-policy')).toBeNull();
      const ready = await probe(server.url, '/readyz?verbose=1');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', caches: 'ok' } });
    }
    const head = await fetch(`${server.url}/readyz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // A POST is not a probe: it falls through to the app (a 404, not a health answer).
    expect((await fetch(`${server.url}/healthz`, { method: 'POST' })).status).toBe(404);
  });

  it('is not ready while a relay cache has not loaded', async () => {
    const readiness = createReadiness(server.ctx, () => ['channels']);
    const r = await readiness.check();
    expect(r.ready).toBe(false);
    expect(r.body).toEqual({
      status: 'unavailable',
      reason: 'caches: not loaded yet: channels',
      checks: { database: 'ok', caches: 'not loaded yet: channels' },
    });
    expect(pendingCaches(relayState(server.ctx))).toEqual([]);
  });
});

describe('readiness during a shutdown', () => {
  let server: TestServer;
  let mock: MockUpstream;

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('/readyz turns 503 "shutting down" on a connection still open, while /healthz stays 200', async () => {
    const { id: userId } = await seedUser(server.ctx, { quota: 10_000_000 });
    const { apiKey } = await seedToken(server.ctx, { userId, unlimited: true });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-slowstart',
      models: ['gpt-4.1-nano-2025-04-14'],
    });
    // One keep-alive connection: a slow stream holds it while the shutdown starts, then the probes reuse it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = (method: string, path: string, body?: unknown) =>
      new Promise<{ status: number; text: string; socket: Socket }>((resolve, reject) => {
        const headers: Record<string, string> = body
          ? { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }
          : {};
        const req = request(`${server.url}${path}`, { agent, method, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, socket: req.socket as Socket }));
        });
        req.on('error', reject);
        req.end(body ? JSON.stringify(body) : undefined);
      });
    const get = async (path: string) => {
      const r = await call('GET', path);
      return { ...r, body: JSON.parse(r.text) };
    };
    const before = await get('/readyz');
    expect(before.status).toBe(200);
    const streamed = call('POST', '/v1/chat/completions', {
      model: 'gpt-4.1-nano-2025-04-14',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    await new Promise((r) => setTimeout(r, 300));
    const closing = server.app.close();
    const answer = await streamed;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('data: [DONE]');
    expect(answer.socket).toBe(before.socket);
    const during = await get('/readyz');
    expect(during.socket).toBe(before.socket);
    expect(during.status).toBe(503);
    expect(during.body).toEqual({ status: 'unavailable', reason: 'shutting down', checks: {} });
    const live = await get('/healthz');
    expect(live.status).toBe(200);
    agent.destroy();
    await closing;
    await server.ctx.close();
  });
});

/** A TCP relay in front of a server, cut and restored by the test (the machine's services stay up). */
async function tcpRelay(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      const listening = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server = listening;
      listening.listen(port, '127.0.0.1', () => {
        port = (listening.address() as { port: number }).port;
        resolve();
      });
    });
  await open();
  return {
    get url() {
      return `redis://127.0.0.1:${port}`;
    },
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server?.close(() => resolve());
      }),
    restore: open,
  };
}

describe.skipIf(!(await redisUp()))('readiness with Redis', () => {
  it('is 503 while Redis cannot be reached, and 200 again once it can', async () => {
    const redis = new URL(REDIS_URL);
    const relay = await tcpRelay({ host: redis.hostname, port: Number(redis.port || 6379) });
    const server = await startServer({ env: { REDIS_CONN_STRING: relay.url } });
    try {
      const ok = await probe(server.url, '/readyz');
      expect(ok.status).toBe(200);
      expect(ok.body.checks).toEqual({ database: 'ok', redis: 'ok', caches: 'ok' });
      await relay.cut();
      const down = await probe(server.url, '/readyz');
      expect(down.status).toBe(503);
      expect(down.body.status).toBe('unavailable');
      expect(down.body.reason).toMatch(/^redis: /);
      expect(down.body.checks.database).toBe('ok');
      expect((await probe(server.url, '/healthz')).status).toBe(200);
      await relay.restore();
      await expect
        .poll(async () => (await probe(server.url, '/readyz')).status, { timeout: 10_000 })
        .toBe(200);
    } finally {
      await server.close();
      await relay.cut();
    }
  });
});

const pg = DATABASES.find((d) => d.name === 'postgres');

describe.skipIf(!pg?.available)('readiness on PostgreSQL', () => {
  let server: TestServer;
  let name = '';

  beforeAll(async () => {
    server = await startServer({ db: pg });
    name = new URL(server.ctx.config.sqlDsn).pathname.slice(1);
  });
  afterAll(async () => {
    await pgAdmin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)).catch(() => {});
    await server?.close();
  });

  it('turns 503 when the database stops answering and 200 when it is back; /healthz stays 200', async () => {
    expect((await probe(server.url, '/readyz')).status).toBe(200);
    // The gateway's database refuses new connections and loses the ones it had.
    await pgAdmin(async (c) => {
      await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    });
    const down = await probe(server.url, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({
      status: 'unavailable',
      reason: 'database: unreachable',
      checks: { database: 'unreachable', caches: 'ok' },
    });
    // The database's own message (host, database name) stays in the log.
    expect(JSON.stringify(down.body)).not.toContain(name);
    expect((await probe(server.url, '/healthz')).status).toBe(200);
    // A channel cache that never managed to load is not counted as loaded.
    const fresh = new ChannelCache(server.ctx);
    await fresh.ready;
    expect(pendingCaches({ ...relayState(server.ctx), channels: fresh })).toEqual(['channels']);

    await pgAdmin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
    await expect.poll(async () => (await probe(server.url, '/readyz')).status).toBe(200);
    await fresh.reload();
    expect(fresh.loaded).toBe(true);
  });

  it('a connection cut while a transaction holds it fails that transaction, not the process', async () => {
    // Between two queries the pool has lent the client out: the cut is reported on the client itself, which
    // would be an uncaught error (a crash in production, a failed run here) without a listener of its own.
    const held = server.ctx.db.db.transaction().execute(async (trx) => {
      await sql`SELECT 1`.execute(trx);
      await pgAdmin((c) =>
        c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]),
      );
      await new Promise((r) => setTimeout(r, 300));
      await sql`SELECT 1`.execute(trx);
    });
    await expect(held).rejects.toThrow();
    await expect.poll(async () => (await probe(server.url, '/readyz')).status).toBe(200);
  });
});
