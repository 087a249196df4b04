import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelStatus, Role } from '@modelgate/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { midjourneyTasks } from '../src/relay/tasks/midjourney/refresh.ts';
import { tasksByMjId } from '../src/relay/tasks/midjourney/store.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { type MidjourneyProxy, PNG, startMidjourneyProxy } from './support/mock-midjourney.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const SECRET = 'mj-proxy-secret-0123';
const START = 1_000_000;
/** US$0.1 (mj_imagine) and US$0.05 (mj_upscale) at 500000 quota per dollar, group ratio 1. */
const IMAGINE = 50_000;
const UPSCALE = 25_000;
const MJ_MODELS = [
  'mj_imagine',
  'mj_upscale',
  'mj_variation',
  'mj_reroll',
  'mj_describe',
  'mj_blend',
  'mj_upload',
];

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Midjourney relay on ${engine.name}`, () => {
    let server: TestServer;
    let proxy: MidjourneyProxy;
    let channelId: number;
    let admin: ConsoleClient & { userId: number };

    beforeAll(async () => {
      proxy = await startMidjourneyProxy(SECRET);
      // The task loop is driven by the tests (midjourneyTasks.poll) so every step is deterministic.
      server = await startServer({ db: engine, env: { TASK_POLL_INTERVAL: '0' } });
      admin = await loginAs(server, { username: 'mjroot', role: Role.Root });
      ({ id: channelId } = await seedChannel(server.ctx, {
        type: 2,
        baseUrl: proxy.url,
        key: SECRET,
        models: MJ_MODELS,
      }));
      await server.ctx.options.set('ServerAddress', 'https://gateway.example');
      // The mock image host listens on 127.0.0.1.
      await server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
    });
    afterAll(async () => {
      await server?.close();
      await proxy?.close();
    });
    beforeEach(async () => {
      for (const [k, v] of Object.entries({
        MjNotifyEnabled: 'false',
        MjAccountFilterEnabled: 'false',
        MjModeClearEnabled: 'false',
        MjForwardUrlEnabled: 'true',
        MjActionCheckSuccessEnabled: 'true',
      }))
        await server.ctx.options.set(k, v);
    });

    async function account(opts: { quota?: number; remain?: number } = {}) {
      const user = await seedUser(server.ctx, { quota: opts.quota ?? START });
      const token = await seedToken(server.ctx, { userId: user.id, remain: opts.remain ?? START });
      return { user, token };
    }

    const call = async (method: string, path: string, apiKey: string, body?: unknown, headers = {}) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    };

    async function books(userId: number, tokenId: number) {
      await flushLedger(server.ctx);
      const { db } = server.ctx.db;
      const user = await db
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      const token = await db
        .selectFrom('tokens')
        .select(['remain_quota', 'used_quota'])
        .where('id', '=', tokenId)
        .executeTakeFirstOrThrow();
      const logs = await server.ctx.logDb.db
        .selectFrom('logs')
        .select(['quota', 'model_name', 'content', 'channel_id', 'token_id'])
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .orderBy('id', 'asc')
        .execute();
      return {
        quota: Number(user.quota),
        used: Number(user.used_quota),
        remain: Number(token.remain_quota),
        tokenUsed: Number(token.used_quota),
        logs: logs.map((l) => ({ ...l, quota: Number(l.quota), channel_id: Number(l.channel_id) })),
        logSum: logs.reduce((s, l) => s + Number(l.quota), 0),
      };
    }

    async function imagine(apiKey: string, prompt = 'a red fox in the snow') {
      const r = await call('POST', '/mj/submit/imagine', apiKey, { prompt });
      expect(r.status).toBe(200);
      expect(r.body.code).toBe(1);
      return r.body.result as string;
    }

    it('submits an imagine, charges its price through the ledger with a log row, and records the task', async () => {
      const { user, token } = await account();
      const r = await call(
        'POST',
        '/mj/submit/imagine',
        'midjourney-proxy',
        { prompt: 'a cat', state: 'mine' },
        {
          'mj-api-secret': token.apiKey,
        },
      );
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        code: 1,
        description: '提交成功',
        properties: { discordInstanceId: expect.any(String) },
      });
      const id = r.body.result as string;
      const upstream = proxy.calls.findLast((c) => c.path === '/mj/submit/imagine');
      expect(upstream?.secret).toBe(SECRET);
      expect(upstream?.body).toEqual({ prompt: 'a cat', state: 'mine' });
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START - IMAGINE);
      expect(b.remain).toBe(START - IMAGINE);
      expect(b.used).toBe(IMAGINE);
      expect(b.logs).toEqual([
        expect.objectContaining({
          quota: IMAGINE,
          model_name: 'mj_imagine',
          channel_id: channelId,
          token_id: token.id,
        }),
      ]);
      expect(b.logs[0].content).toContain(`操作 IMAGINE，ID ${id}`);
      const [row] = await tasksByMjId(server.ctx, id);
      expect(row).toMatchObject({
        user_id: user.id,
        token_id: token.id,
        quota: IMAGINE,
        status: 'SUBMITTED',
        state: 'mine',
      });
    });

    it('200 concurrent submits against a balance for seven: seven served, the rest refused, nothing overdrawn', async () => {
      const { user, token } = await account({ quota: IMAGINE * 7 + IMAGINE / 2 });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          call('POST', '/mj/submit/imagine', token.apiKey, { prompt: `a fox number ${i}` }),
        ),
      );
      const served = results.filter((r) => r.status === 200 && r.body.code === 1);
      expect(served).toHaveLength(7);
      const b = await books(user.id, token.id);
      expect(b.logs).toHaveLength(7);
      expect(b.quota).toBe(IMAGINE / 2);
      expect(b.quota + b.logSum).toBe(IMAGINE * 7 + IMAGINE / 2);
    });

    it('fetches progress, then success with the image behind the signed proxy and the buttons', async () => {
      const { token } = await account();
      const id = await imagine(token.apiKey);
      proxy.advance(id, 'progress', '45%');
      // Never looked at: the fetch asks the upstream before answering.
      const first = await call('GET', `/mj/task/${id}/fetch`, token.apiKey);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id, action: 'IMAGINE', status: 'IN_PROGRESS', progress: '45%' });
      proxy.advance(id, 'progress', '80%');
      await midjourneyTasks.poll(relayState(server.ctx));
      const mid = await call('GET', `/mj/task/${id}/fetch`, token.apiKey);
      expect(mid.body).toMatchObject({ status: 'IN_PROGRESS', progress: '80%' });
      proxy.advance(id, 'success');
      await midjourneyTasks.poll(relayState(server.ctx));
      const done = await call('GET', `/mj/task/${id}/fetch`, token.apiKey);
      expect(done.body).toMatchObject({
        id,
        status: 'SUCCESS',
        progress: '100%',
        failReason: '',
        properties: expect.objectContaining({ finalPrompt: 'a red fox in the snow --v 6' }),
      });
      expect(done.body.buttons).toHaveLength(4);
      expect(done.body.imageUrl).toMatch(
        new RegExp(`^https://gateway\\.example/mj/image/${id}\\?sig=[\\w-]+$`),
      );
      const path = String(done.body.imageUrl).replace('https://gateway.example', '');
      const img = await fetch(`${server.url}${path}`);
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);
      const forged = await fetch(`${server.url}/mj/image/${id}?sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
      expect(forged.status).toBe(404);
      expect(await forged.json()).toMatchObject({ code: 3 });
      const listed = await call('POST', '/mj/task/list-by-condition', token.apiKey, { ids: [id, 'nope'] });
      expect(listed.body.map((t: { id: string }) => t.id)).toEqual([id]);
    });

    it('follow-ups go to the parent task channel and are priced by their action', async () => {
      const { user, token } = await account();
      const parent = await imagine(token.apiKey);
      const early = await call('POST', '/mj/submit/change', token.apiKey, {
        taskId: parent,
        action: 'UPSCALE',
        index: 1,
      });
      expect(early.status).toBe(400);
      expect(early.body.code).toBe(4);
      proxy.advance(parent, 'success');
      await midjourneyTasks.poll(relayState(server.ctx));
      const up = await call('POST', '/mj/submit/change', token.apiKey, {
        taskId: parent,
        action: 'UPSCALE',
        index: 2,
      });
      expect(up.body.code).toBe(1);
      const simple = await call('POST', '/mj/submit/simple-change', token.apiKey, {
        content: `${parent} U3`,
      });
      expect(simple.body.code).toBe(1);
      const action = await call('POST', '/mj/submit/action', token.apiKey, {
        taskId: parent,
        customId: 'MJ::JOB::upsample::4::0c4b1e3c-93b0-4b0e-9b1e-b3f1c1f2a7d4',
      });
      expect(action.body.code).toBe(1);
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.model_name)).toEqual([
        'mj_imagine',
        'mj_upscale',
        'mj_upscale',
        'mj_upscale',
      ]);
      expect(b.quota).toBe(START - IMAGINE - 3 * UPSCALE);
      expect(b.remain).toBe(START - IMAGINE - 3 * UPSCALE);
    });

    it("answers not found for an unknown task and for another user's task, and bills nothing", async () => {
      const owner = await account();
      const other = await account();
      const id = await imagine(owner.token.apiKey);
      proxy.advance(id, 'success');
      await midjourneyTasks.poll(relayState(server.ctx));
      for (const [method, path, body] of [
        ['GET', `/mj/task/${id}/fetch`, undefined],
        ['GET', '/mj/task/1234567890/fetch', undefined],
        ['GET', `/mj/task/${id}/image-seed`, undefined],
        ['POST', '/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 1 }],
        ['POST', '/mj/submit/simple-change', { content: `${id} V1` }],
      ] as const) {
        const r = await call(method, path, other.token.apiKey, body);
        expect(r.status, path).toBe(404);
        expect(r.body, path).toMatchObject({ code: 3, description: expect.stringContaining('not found') });
      }
      expect(
        (await call('POST', '/mj/task/list-by-condition', other.token.apiKey, { ids: [id] })).body,
      ).toEqual([]);
      const seed = await call('GET', `/mj/task/${id}/image-seed`, owner.token.apiKey);
      expect(seed.body).toEqual({ code: 1, description: '成功', result: '2736581539' });
      const b = await books(other.user.id, other.token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
    });

    it('refuses malformed submits with code 4 and bills nothing', async () => {
      const { user, token } = await account();
      const before = proxy.calls.length;
      for (const [path, body] of [
        ['/mj/submit/imagine', { prompt: '   ' }],
        ['/mj/submit/imagine', '{"prompt": '],
        ['/mj/submit/imagine', '[1,2]'],
        ['/mj/submit/blend', { base64Array: ['data:image/png;base64,AAAA'] }],
        ['/mj/submit/change', { taskId: 'x', action: 'ZOOM', index: 1 }],
        ['/mj/submit/simple-change', { content: '12345 U9' }],
        ['/mj/submit/action', { taskId: 'x' }],
        ['/mj/submit/describe', {}],
      ] as const) {
        const r = await call('POST', path, token.apiKey, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.code, path).toBe(4);
        expect(r.body.description, path).toBeTruthy();
      }
      expect(proxy.calls.length).toBe(before);
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      const noKey = await call('POST', '/mj/submit/imagine', 'sk-wrong', { prompt: 'x' });
      expect(noKey.status).toBe(401);
      expect(noKey.body.code).toBe(4);
    });

    it('releases the charge at once when the upstream refuses or fails, keeping the refusal in the log', async () => {
      const { user, token } = await account();
      proxy.refuseNext(23, '队列已满，请稍后尝试');
      const full = await call('POST', '/mj/submit/imagine', token.apiKey, { prompt: 'a queue' });
      expect(full.status).toBe(200);
      expect(full.body).toMatchObject({ code: 23, description: '队列已满，请稍后尝试' });
      proxy.refuseNext(9, 'boom', 500);
      const broken = await call('POST', '/mj/submit/imagine', token.apiKey, { prompt: 'a crash' });
      expect(broken.status).toBe(502);
      expect(broken.body.code).toBe(9);
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.logs).toEqual([]);
      expect(relayState(server.ctx).users.peekBalance(user.id)?.available).toBe(START);
      const own = await server.ctx.db.db
        .selectFrom('midjourneys')
        .select(['code', 'status', 'fail_reason', 'quota'])
        .where('user_id', '=', user.id)
        .orderBy('id')
        .execute();
      expect(own.map((r) => ({ ...r, code: Number(r.code), quota: Number(r.quota) }))).toEqual([
        { code: 23, status: 'FAILURE', fail_reason: '队列已满，请稍后尝试', quota: 0 },
        { code: 9, status: 'FAILURE', fail_reason: 'boom', quota: 0 },
      ]);
    });

    /** A second Midjourney channel of the default group, tried first, removed again after `run`. */
    async function withSecondChannel(key: string, run: (id: number) => Promise<void>) {
      const second = await seedChannel(server.ctx, {
        type: 2,
        baseUrl: proxy.url,
        key,
        models: MJ_MODELS,
        priority: 10,
      });
      await server.ctx.options.set('RetryTimes', '1');
      try {
        await run(second.id);
      } finally {
        await server.ctx.options.set('RetryTimes', '0');
        await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
        await server.ctx.db.db.deleteFrom('channels').where('id', '=', second.id).execute();
        await server.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', second.id).execute();
        await relayState(server.ctx).channels.reload();
      }
    }

    const drawings = async (userId: number) =>
      (
        await server.ctx.db.db
          .selectFrom('midjourneys')
          .select(['code', 'status', 'channel_id', 'quota'])
          .where('user_id', '=', userId)
          .orderBy('id')
          .execute()
      ).map((r) => ({
        ...r,
        code: Number(r.code),
        channel_id: Number(r.channel_id),
        quota: Number(r.quota),
      }));

    it('disables a channel whose secret the proxy refuses, as the relay does, and draws on another one', async () => {
      await withSecondChannel('a-revoked-secret', async (refused) => {
        await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
        const { user, token } = await account();
        const before = proxy.calls.length;
        await imagine(token.apiKey, 'a fox on a second try');
        expect(
          proxy.calls
            .slice(before)
            .filter((c) => c.path === '/mj/submit/imagine')
            .map((c) => c.secret),
        ).toEqual(['a-revoked-secret', SECRET]);
        const b = await books(user.id, token.id);
        expect(b.quota).toBe(START - IMAGINE);
        expect(b.logs.map((l) => [l.quota, l.channel_id])).toEqual([[IMAGINE, channelId]]);
        expect(await drawings(user.id)).toEqual([
          { code: 1, status: 'SUBMITTED', channel_id: channelId, quota: IMAGINE },
        ]);
        await expect
          .poll(async () => {
            const row = await server.ctx.db.db
              .selectFrom('channels')
              .select('status')
              .where('id', '=', refused)
              .executeTakeFirst();
            return row?.status;
          })
          .toBe(ChannelStatus.AutoDisabled);
        expect(
          relayState(server.ctx)
            .channels.tiers('default', 'mj_imagine')
            .flatMap((t) => t.channels.map((c) => c.id)),
        ).not.toContain(refused);
      });
    });

    it("tries another channel when a proxy's queue is full, but answers a refused prompt at once", async () => {
      await withSecondChannel(SECRET, async () => {
        const { user, token } = await account();
        const submits = () => proxy.calls.filter((c) => c.path === '/mj/submit/imagine').length;
        let before = submits();
        proxy.refuseNext(23, '队列已满，请稍后尝试');
        await imagine(token.apiKey, 'a fox in a queue');
        expect(submits() - before).toBe(2);
        before = submits();
        proxy.refuseNext(24, '可能包含敏感词');
        const banned = await call('POST', '/mj/submit/imagine', token.apiKey, { prompt: 'a banned fox' });
        expect(banned.status).toBe(200);
        expect(banned.body).toMatchObject({ code: 24, description: '可能包含敏感词' });
        expect(submits() - before).toBe(1);
        const b = await books(user.id, token.id);
        expect(b.quota).toBe(START - IMAGINE);
        expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE]);
        expect((await drawings(user.id)).map((d) => [d.code, d.status, d.quota])).toEqual([
          [1, 'SUBMITTED', IMAGINE],
          [24, 'FAILURE', 0],
        ]);
      });
    });

    it("routes submits by the group's routing mode", async () => {
      await server.ctx.options.set('GroupRoutingMode', JSON.stringify({ 'mj-turns': 'round_robin' }));
      try {
        const ids: number[] = [];
        for (let i = 0; i < 2; i++)
          ids.push(
            (
              await seedChannel(server.ctx, {
                type: 2,
                baseUrl: proxy.url,
                key: SECRET,
                models: MJ_MODELS,
                group: 'mj-turns',
              })
            ).id,
          );
        const user = await seedUser(server.ctx, { quota: START, group: 'mj-turns' });
        const token = await seedToken(server.ctx, { userId: user.id, remain: START });
        for (let i = 0; i < 4; i++) await imagine(token.apiKey, `a fox number ${i}`);
        const used = (await books(user.id, token.id)).logs.map((l) => l.channel_id);
        expect(used).toHaveLength(4);
        for (let i = 1; i < 4; i++) expect(used[i]).not.toBe(used[i - 1]);
        expect(new Set(used)).toEqual(new Set(ids));
      } finally {
        await server.ctx.options.set('GroupRoutingMode', '{}');
      }
    });

    it('refunds a failed task exactly once with 20 fetches and a notify callback racing the loop', async () => {
      await server.ctx.options.set('MjNotifyEnabled', 'true');
      const { user, token } = await account();
      const id = await imagine(token.apiKey, 'doomed');
      expect(proxy.tasks.get(id)?.properties.notifyHook).toBe('https://gateway.example/mj/notify');
      proxy.advance(id, 'failure', 'Banned prompt detected');
      const state = relayState(server.ctx);
      const [fetches, notified] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, () => call('GET', `/mj/task/${id}/fetch`, token.apiKey))),
        fetch(`${server.url}/mj/notify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(proxy.tasks.get(id)),
        }),
        midjourneyTasks.poll(state),
        midjourneyTasks.poll(state),
      ]);
      expect(notified.status).toBe(200);
      for (const f of fetches)
        expect(f.body).toMatchObject({ id, status: 'FAILURE', failReason: 'Banned prompt detected' });
      await midjourneyTasks.poll(state);
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE, -IMAGINE]);
      expect(b.logs[1].content).toContain(id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.used).toBe(0);
      expect(b.tokenUsed).toBe(0);
      expect(b.used).toBe(b.logSum);
      expect(state.users.peekBalance(user.id)?.available).toBe(START);
      const [row] = await tasksByMjId(server.ctx, id);
      expect(row).toMatchObject({
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'Banned prompt detected',
      });
    });

    it('lets exactly one of 20 concurrent final updates refund', async () => {
      const { user, token } = await account();
      const id = await imagine(token.apiKey, 'raced');
      const [row] = await tasksByMjId(server.ctx, id);
      const state = relayState(server.ctx);
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          midjourneyTasks.apply(state, row, {
            status: 'FAILURE',
            fail_reason: `racer ${i}`,
            progress: '100%',
            updated_at: Date.now(),
          }),
        ),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE, -IMAGINE]);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
    });

    it('fails and refunds a task unfinished past the timeout', async () => {
      const { user, token } = await account();
      const id = await imagine(token.apiKey, 'slow');
      await server.ctx.db.db
        .updateTable('midjourneys')
        .set({ submit_time: Date.now() - 61 * 60_000 })
        .where('mj_id', '=', id)
        .execute();
      await midjourneyTasks.poll(relayState(server.ctx));
      const [row] = await tasksByMjId(server.ctx, id);
      expect(row.status).toBe('FAILURE');
      expect(row.fail_reason).toContain('timed out');
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE, -IMAGINE]);
    });

    it('keeps polling through upstream errors without failing or refunding', async () => {
      const { user, token } = await account();
      const id = await imagine(token.apiKey, 'patient');
      proxy.failLists(1);
      await midjourneyTasks.poll(relayState(server.ctx));
      expect((await tasksByMjId(server.ctx, id))[0].status).toBe('SUBMITTED');
      proxy.advance(id, 'success');
      await midjourneyTasks.poll(relayState(server.ctx));
      expect((await tasksByMjId(server.ctx, id))[0].status).toBe('SUCCESS');
      expect((await books(user.id, token.id)).quota).toBe(START - IMAGINE);
    });

    it('applies the Mj options: account filter, mode flags, notify forwarding through the guard', async () => {
      const { token } = await account();
      await call('POST', '/mj/submit/imagine', token.apiKey, {
        prompt: 'a tree --fast --ar 1:1',
        accountFilter: { modes: ['FAST'] },
        notifyHook: 'https://client.example/hook',
      });
      expect(proxy.calls.findLast((c) => c.path === '/mj/submit/imagine')?.body).toEqual({
        prompt: 'a tree --fast --ar 1:1',
      });

      await server.ctx.options.set('MjModeClearEnabled', 'true');
      await server.ctx.options.set('MjAccountFilterEnabled', 'true');
      await server.ctx.options.set('MjNotifyEnabled', 'true');
      const got: unknown[] = [];
      const hook = createServer((req, res) => {
        let s = '';
        req.on('data', (c) => {
          s += c;
        });
        req.on('end', () => {
          got.push(JSON.parse(s));
          res.end('ok');
        });
      });
      await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
      const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      try {
        const r = await call('POST', '/mj/submit/imagine', token.apiKey, {
          prompt: 'a tree --relax --ar 1:1',
          accountFilter: { modes: ['FAST'] },
          notifyHook: hookUrl,
        });
        const sent = proxy.calls.findLast((c) => c.path === '/mj/submit/imagine')?.body;
        expect(sent).toEqual({
          prompt: 'a tree --ar 1:1',
          accountFilter: { modes: ['FAST'] },
          notifyHook: 'https://gateway.example/mj/notify',
        });
        proxy.advance(r.body.result, 'success');
        await midjourneyTasks.poll(relayState(server.ctx));
        await expect.poll(() => got.length).toBe(1);
        expect(got[0]).toMatchObject({
          id: r.body.result,
          status: 'SUCCESS',
          imageUrl: expect.stringMatching(/^https:\/\/gateway\.example\/mj\/image\//),
        });

        await server.ctx.options.set('fetch_setting.allow_private_ip', 'false');
        const refused = await call('POST', '/mj/submit/imagine', token.apiKey, {
          prompt: 'x',
          notifyHook: hookUrl,
        });
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 4, description: expect.stringContaining('notifyHook') });
      } finally {
        await server.ctx.options.set('fetch_setting.allow_private_ip', 'true');
        await new Promise((r) => hook.close(r));
      }
    });

    it('keeps a speed prefix for a Plus channel and drops it for the open-source proxy', async () => {
      const plus = await seedChannel(server.ctx, {
        type: 5,
        baseUrl: proxy.url,
        key: SECRET,
        models: MJ_MODELS,
        group: 'plus',
      });
      const boss = await seedUser(server.ctx, { quota: START, role: Role.Admin });
      const t = await seedToken(server.ctx, { userId: boss.id, remain: START });
      const viaPlus = await call('POST', '/mj-fast/mj/submit/imagine', `${t.apiKey}-${plus.id}`, {
        prompt: 'fast one',
      });
      expect(viaPlus.body.code).toBe(1);
      expect(proxy.calls.at(-1)?.path).toBe('/mj-fast/mj/submit/imagine');
      const viaOpen = await call('POST', '/mj-relax/mj/submit/imagine', t.apiKey, { prompt: 'slow one' });
      expect(viaOpen.body.code).toBe(1);
      expect(proxy.calls.at(-1)?.path).toBe('/mj/submit/imagine');
      const fetched = await call('GET', `/mj-fast/mj/task/${viaPlus.body.result}/fetch`, t.apiKey);
      expect(fetched.body.id).toBe(viaPlus.body.result);
      expect((await call('POST', '/mj-slow/mj/submit/imagine', t.apiKey, { prompt: 'x' })).status).toBe(404);
    });

    it('shows the drawing log to its owner, hides it from others, and shows everything to admins', async () => {
      const owner = await loginAs(server, { username: `mjowner-${engine.name}` });
      const other = await loginAs(server, { username: `mjother-${engine.name}` });
      await server.ctx.db.db
        .updateTable('users')
        .set({ quota: START })
        .where('id', '=', owner.userId)
        .execute();
      server.ctx.bus.publish(`user:${owner.userId}`);
      const token = await seedToken(server.ctx, { userId: owner.userId, remain: START });
      const id = await imagine(token.apiKey, 'for the log');
      proxy.advance(id, 'success');
      await midjourneyTasks.poll(relayState(server.ctx));
      const mine = await owner.get(`/api/mj/self/?mj_id=${id}`);
      expect(mine.data).toEqual([
        expect.objectContaining({
          mj_id: id,
          status: 'SUCCESS',
          progress: '100%',
          quota: IMAGINE,
          prompt: 'for the log',
        }),
      ]);
      expect(mine.data[0]).not.toHaveProperty('channel_id');
      expect(mine.data[0].image_url).toMatch(new RegExp(`^/mj/image/${id}\\?sig=`));
      expect((await other.get(`/api/mj/self/?mj_id=${id}`)).data).toEqual([]);
      expect((await other.get('/api/mj/')).status).toBe(403);
      const all = await admin.get(`/api/mj/?mj_id=${id}`);
      expect(all.data).toEqual([
        expect.objectContaining({ mj_id: id, user_id: owner.userId, channel_id: channelId }),
      ]);
    });
  });
}

describe('the Midjourney task loop', () => {
  it('runs on the master by itself and brings tasks to their end', async () => {
    const proxy = await startMidjourneyProxy(SECRET);
    const server = await startServer({ env: { TASK_POLL_INTERVAL: '0.1' } });
    try {
      await seedChannel(server.ctx, { type: 2, baseUrl: proxy.url, key: SECRET, models: MJ_MODELS });
      const user = await seedUser(server.ctx, { quota: START });
      const token = await seedToken(server.ctx, { userId: user.id, remain: START });
      const res = await fetch(`${server.url}/mj/submit/imagine`, {
        method: 'POST',
        headers: { 'mj-api-secret': token.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'left alone' }),
      });
      const { result: id } = (await res.json()) as { result: string };
      proxy.advance(id, 'success');
      await expect
        .poll(async () => (await tasksByMjId(server.ctx, id))[0]?.status, { timeout: 5000 })
        .toBe('SUCCESS');
      expect(
        proxy.calls.some((c) => c.path === '/mj/task/list-by-condition' && c.body.ids.includes(id)),
      ).toBe(true);
    } finally {
      await server.close();
      await proxy.close();
    }
  });
});
