import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/modules/auth/password.ts';
import { createAccount } from '../src/modules/users/service.ts';
import { DATABASES, REDIS_URL, redisUp } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('ctx.users', () => {
  let server: TestServer;
  let id: number;
  const db = () => server.ctx.db.db;

  beforeAll(async () => {
    server = await startServer();
    id = await createAccount(
      server.ctx,
      { username: 'cached', passwordHash: await hashPassword('password123') },
      { initialQuota: 42 },
    );
  });
  afterAll(() => server?.close());

  it('reads the database first, then memory, until user:<id> is announced', async () => {
    server.ctx.users.invalidate();
    expect(server.ctx.users.peek(id)).toBeUndefined();
    const first = await server.ctx.users.get(id);
    expect(first).toMatchObject({
      id,
      username: 'cached',
      role: 1,
      status: 1,
      group: 'default',
      quota: 42,
      deleted: false,
    });
    expect(first?.setting).toMatchObject({ notify_type: 'email', quota_warning_threshold: 500000 });
    expect(server.ctx.users.peek(id)).toEqual(first);

    await db()
      .updateTable('users')
      .set({ group: 'vip', setting: '{"notify_type":"webhook","webhook_url":"https://x.example"}' })
      .where('id', '=', id)
      .execute();
    expect((await server.ctx.users.get(id))?.group).toBe('default');
    server.ctx.bus.publish(`user:${id}`);
    const fresh = await server.ctx.users.get(id);
    expect(fresh?.group).toBe('vip');
    expect(fresh?.setting).toMatchObject({
      notify_type: 'webhook',
      webhook_url: 'https://x.example',
      quota_warning_threshold: 500000,
    });
  });

  it('treats malformed stored settings as defaults and never returns deleted or unknown users', async () => {
    await db().updateTable('users').set({ setting: '{not json' }).where('id', '=', id).execute();
    server.ctx.bus.publish('user:*');
    expect((await server.ctx.users.get(id))?.setting.notify_type).toBe('email');
    await db().updateTable('users').set({ deleted_at: 1 }).where('id', '=', id).execute();
    server.ctx.bus.publish(`user:${id}`);
    expect(await server.ctx.users.get(id)).toBeUndefined();
    expect(server.ctx.users.peek(id)).toBeUndefined();
    expect(await server.ctx.users.get(999999)).toBeUndefined();
    expect(await server.ctx.users.get(-1)).toBeUndefined();
  });
});

const pg = DATABASES.find((d) => d.name === 'postgres');
describe.skipIf(!pg?.available || !(await redisUp()))('ctx.users across instances through Redis', () => {
  it('drops a user on every instance when one announces the change', async () => {
    const a = await startServer({ db: pg, env: { REDIS_CONN_STRING: REDIS_URL } });
    try {
      const { buildApp } = await import('../src/app.ts');
      const { createContext } = await import('../src/context.ts');
      const { loadConfig } = await import('../src/config.ts');
      const pino = (await import('pino')).default;
      const ctxB = await createContext(
        loadConfig({ SQL_DSN: a.ctx.config.sqlDsn, REDIS_CONN_STRING: REDIS_URL, LOG_LEVEL: 'silent' }),
        pino({ level: 'silent' }),
      );
      const appB = await buildApp(ctxB);
      try {
        const id = await createAccount(
          a.ctx,
          { username: 'shared', passwordHash: await hashPassword('password123') },
          { initialQuota: 5 },
        );
        expect((await ctxB.users.get(id))?.quota).toBe(5);
        await a.ctx.db.db.updateTable('users').set({ status: 2 }).where('id', '=', id).execute();
        a.ctx.bus.publish(`user:${id}`);
        await expect.poll(async () => (await ctxB.users.get(id))?.status, { timeout: 5000 }).toBe(2);
      } finally {
        await appB.close();
        await ctxB.close();
      }
    } finally {
      await a.close();
    }
  });
});
