import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { tasksByMjId } from '../src/relay/tasks/midjourney/store.ts';
import { DATABASES } from './support/databases.ts';
import { IMAGINE, MidjourneyRelay, MJ_MODELS, SECRET, UPSCALE } from './support/midjourney-relay.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { START } from './support/task-relay.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Midjourney relay on ${engine.name}`, () => {
    const relay = new MidjourneyRelay(engine);

    it('submits an imagine, charges its price through the ledger with a log row, and records the task', async () => {
      const { user, token } = await relay.account();
      const r = await relay.call(
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
      const upstream = relay.upstream.calls.findLast((c) => c.path === '/mj/submit/imagine');
      expect(upstream?.secret).toBe(SECRET);
      expect(upstream?.body).toEqual({ prompt: 'a cat', state: 'mine' });
      await relay.expectChargedOnce(user.id, token, {
        quota: IMAGINE,
        model: 'mj_imagine',
        content: `操作 IMAGINE，ID ${id}`,
      });
      const [row] = await tasksByMjId(relay.ctx, id);
      expect(row).toMatchObject({
        user_id: user.id,
        token_id: token.id,
        quota: IMAGINE,
        status: 'SUBMITTED',
        state: 'mine',
      });
    });

    it('200 concurrent submits against a balance for seven: seven served, the rest refused, nothing overdrawn', async () => {
      const { user, token } = await relay.account({ quota: IMAGINE * 7 + IMAGINE / 2 });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          relay.call('POST', '/mj/submit/imagine', token.apiKey, { prompt: `a fox number ${i}` }),
        ),
      );
      const served = results.filter((r) => r.status === 200 && r.body.code === 1);
      expect(served).toHaveLength(7);
      const b = await relay.books(user.id, token.id);
      expect(b.logs).toHaveLength(7);
      expect(b.quota).toBe(IMAGINE / 2);
      expect(b.quota + b.logSum).toBe(IMAGINE * 7 + IMAGINE / 2);
    });

    it('follow-ups go to the parent task channel and are priced by their action', async () => {
      const { user, token } = await relay.account();
      const parent = await relay.imagine(token.apiKey);
      const early = await relay.call('POST', '/mj/submit/change', token.apiKey, {
        taskId: parent,
        action: 'UPSCALE',
        index: 1,
      });
      expect(early.status).toBe(400);
      expect(early.body.code).toBe(4);
      relay.upstream.advance(parent, 'success');
      await relay.poll();
      const up = await relay.call('POST', '/mj/submit/change', token.apiKey, {
        taskId: parent,
        action: 'UPSCALE',
        index: 2,
      });
      expect(up.body.code).toBe(1);
      const simple = await relay.call('POST', '/mj/submit/simple-change', token.apiKey, {
        content: `${parent} U3`,
      });
      expect(simple.body.code).toBe(1);
      const action = await relay.call('POST', '/mj/submit/action', token.apiKey, {
        taskId: parent,
        customId: 'MJ::JOB::upsample::4::0c4b1e3c-93b0-4b0e-9b1e-b3f1c1f2a7d4',
      });
      expect(action.body.code).toBe(1);
      const b = await relay.books(user.id, token.id);
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
      const owner = await relay.account();
      const other = await relay.account();
      const id = await relay.imagine(owner.token.apiKey);
      relay.upstream.advance(id, 'success');
      await relay.poll();
      for (const [method, path, body] of [
        ['GET', `/mj/task/${id}/fetch`, undefined],
        ['GET', '/mj/task/1234567890/fetch', undefined],
        ['GET', `/mj/task/${id}/image-seed`, undefined],
        ['POST', '/mj/submit/change', { taskId: id, action: 'UPSCALE', index: 1 }],
        ['POST', '/mj/submit/simple-change', { content: `${id} V1` }],
      ] as const) {
        const r = await relay.call(method, path, other.token.apiKey, body);
        expect(r.status, path).toBe(404);
        expect(r.body, path).toMatchObject({ code: 3, description: expect.stringContaining('not found') });
      }
      expect(
        (await relay.call('POST', '/mj/task/list-by-condition', other.token.apiKey, { ids: [id] })).body,
      ).toEqual([]);
      const seed = await relay.call('GET', `/mj/task/${id}/image-seed`, owner.token.apiKey);
      expect(seed.body).toEqual({ code: 1, description: '成功', result: '2736581539' });
      const b = await relay.books(other.user.id, other.token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
    });

    it('refuses malformed submits with code 4 and bills nothing', async () => {
      const { user, token } = await relay.account();
      const before = relay.upstream.calls.length;
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
        const r = await relay.call('POST', path, token.apiKey, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.code, path).toBe(4);
        expect(r.body.description, path).toBeTruthy();
      }
      expect(relay.upstream.calls.length).toBe(before);
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      const noKey = await relay.call('POST', '/mj/submit/imagine', 'sk-wrong', { prompt: 'x' });
      expect(noKey.status).toBe(401);
      expect(noKey.body.code).toBe(4);
    });

    it('releases the charge at once when the upstream refuses or fails, keeping the refusal in the log', async () => {
      const { user, token } = await relay.account();
      relay.upstream.refuseNext(23, '队列已满，请稍后尝试');
      const full = await relay.call('POST', '/mj/submit/imagine', token.apiKey, { prompt: 'a queue' });
      expect(full.status).toBe(200);
      expect(full.body).toMatchObject({ code: 23, description: '队列已满，请稍后尝试' });
      relay.upstream.refuseNext(9, 'boom', 500);
      const broken = await relay.call('POST', '/mj/submit/imagine', token.apiKey, { prompt: 'a crash' });
      expect(broken.status).toBe(502);
      expect(broken.body.code).toBe(9);
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.logs).toEqual([]);
      expect(relay.state.users.peekBalance(user.id)?.available).toBe(START);
      const own = await relay.ctx.db.db
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

    it('applies the Mj options: account filter, mode flags, notify forwarding through the guard', async () => {
      const { token } = await relay.account();
      await relay.call('POST', '/mj/submit/imagine', token.apiKey, {
        prompt: 'a tree --fast --ar 1:1',
        accountFilter: { modes: ['FAST'] },
        notifyHook: 'https://client.example/hook',
      });
      expect(relay.upstream.calls.findLast((c) => c.path === '/mj/submit/imagine')?.body).toEqual({
        prompt: 'a tree --fast --ar 1:1',
      });

      await relay.ctx.options.set('MjModeClearEnabled', 'true');
      await relay.ctx.options.set('MjAccountFilterEnabled', 'true');
      await relay.ctx.options.set('MjNotifyEnabled', 'true');
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
        const r = await relay.call('POST', '/mj/submit/imagine', token.apiKey, {
          prompt: 'a tree --relax --ar 1:1',
          accountFilter: { modes: ['FAST'] },
          notifyHook: hookUrl,
        });
        const sent = relay.upstream.calls.findLast((c) => c.path === '/mj/submit/imagine')?.body;
        expect(sent).toEqual({
          prompt: 'a tree --ar 1:1',
          accountFilter: { modes: ['FAST'] },
          notifyHook: 'https://gateway.example/mj/notify',
        });
        relay.upstream.advance(r.body.result, 'success');
        await relay.poll();
        await expect.poll(() => got.length).toBe(1);
        expect(got[0]).toMatchObject({
          id: r.body.result,
          status: 'SUCCESS',
          imageUrl: expect.stringMatching(/^https:\/\/gateway\.example\/mj\/image\//),
        });

        await relay.ctx.options.set('fetch_setting.allow_private_ip', 'false');
        const refused = await relay.call('POST', '/mj/submit/imagine', token.apiKey, {
          prompt: 'x',
          notifyHook: hookUrl,
        });
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 4, description: expect.stringContaining('notifyHook') });
      } finally {
        await relay.ctx.options.set('fetch_setting.allow_private_ip', 'true');
        await new Promise((r) => hook.close(r));
      }
    });

    it('keeps a speed prefix for a Plus channel and drops it for the open-source proxy', async () => {
      const plus = await seedChannel(relay.ctx, {
        type: 5,
        baseUrl: relay.upstream.url,
        key: SECRET,
        models: MJ_MODELS,
        group: 'plus',
      });
      const boss = await seedUser(relay.ctx, { quota: START, role: Role.Admin });
      const t = await seedToken(relay.ctx, { userId: boss.id, remain: START });
      const viaPlus = await relay.call('POST', '/mj-fast/mj/submit/imagine', `${t.apiKey}-${plus.id}`, {
        prompt: 'fast one',
      });
      expect(viaPlus.body.code).toBe(1);
      expect(relay.upstream.calls.at(-1)?.path).toBe('/mj-fast/mj/submit/imagine');
      const viaOpen = await relay.call('POST', '/mj-relax/mj/submit/imagine', t.apiKey, {
        prompt: 'slow one',
      });
      expect(viaOpen.body.code).toBe(1);
      expect(relay.upstream.calls.at(-1)?.path).toBe('/mj/submit/imagine');
      const fetched = await relay.call('GET', `/mj-fast/mj/task/${viaPlus.body.result}/fetch`, t.apiKey);
      expect(fetched.body.id).toBe(viaPlus.body.result);
      expect((await relay.call('POST', '/mj-slow/mj/submit/imagine', t.apiKey, { prompt: 'x' })).status).toBe(
        404,
      );
    });

    it('disables a channel whose secret the proxy refuses, as the relay does, and draws on another one', async () => {
      await relay.withSecondChannel('a-revoked-secret', async (refused) => {
        await relay.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
        const { user, token } = await relay.account();
        const before = relay.upstream.calls.length;
        await relay.imagine(token.apiKey, 'a fox on a second try');
        expect(
          relay.upstream.calls
            .slice(before)
            .filter((c) => c.path === '/mj/submit/imagine')
            .map((c) => c.secret),
        ).toEqual(['a-revoked-secret', SECRET]);
        const b = await relay.books(user.id, token.id);
        expect(b.quota).toBe(START - IMAGINE);
        expect(b.logs.map((l) => [l.quota, l.channel_id])).toEqual([[IMAGINE, relay.channelId]]);
        expect(await relay.drawings(user.id)).toEqual([
          { code: 1, status: 'SUBMITTED', channel_id: relay.channelId, quota: IMAGINE },
        ]);
        await relay.expectAutoDisabled(refused, 'mj_imagine');
      });
    });

    it("tries another channel when a proxy's queue is full, but answers a refused prompt at once", async () => {
      await relay.withSecondChannel(SECRET, async () => {
        const { user, token } = await relay.account();
        const submits = () => relay.upstream.calls.filter((c) => c.path === '/mj/submit/imagine').length;
        let before = submits();
        relay.upstream.refuseNext(23, '队列已满，请稍后尝试');
        await relay.imagine(token.apiKey, 'a fox in a queue');
        expect(submits() - before).toBe(2);
        before = submits();
        relay.upstream.refuseNext(24, '可能包含敏感词');
        const banned = await relay.call('POST', '/mj/submit/imagine', token.apiKey, {
          prompt: 'a banned fox',
        });
        expect(banned.status).toBe(200);
        expect(banned.body).toMatchObject({ code: 24, description: '可能包含敏感词' });
        expect(submits() - before).toBe(1);
        const b = await relay.books(user.id, token.id);
        expect(b.quota).toBe(START - IMAGINE);
        expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE]);
        expect((await relay.drawings(user.id)).map((d) => [d.code, d.status, d.quota])).toEqual([
          [1, 'SUBMITTED', IMAGINE],
          [24, 'FAILURE', 0],
        ]);
      });
    });

    it("routes submits by the group's routing mode", async () => {
      await relay.ctx.options.set('GroupRoutingMode', JSON.stringify({ 'mj-turns': 'round_robin' }));
      try {
        const ids: number[] = [];
        for (let i = 0; i < 2; i++)
          ids.push(
            (
              await seedChannel(relay.ctx, {
                type: 2,
                baseUrl: relay.upstream.url,
                key: SECRET,
                models: MJ_MODELS,
                group: 'mj-turns',
              })
            ).id,
          );
        const user = await seedUser(relay.ctx, { quota: START, group: 'mj-turns' });
        const token = await seedToken(relay.ctx, { userId: user.id, remain: START });
        for (let i = 0; i < 4; i++) await relay.imagine(token.apiKey, `a fox number ${i}`);
        const used = (await relay.books(user.id, token.id)).logs.map((l) => l.channel_id);
        expect(used).toHaveLength(4);
        for (let i = 1; i < 4; i++) expect(used[i]).not.toBe(used[i - 1]);
        expect(new Set(used)).toEqual(new Set(ids));
      } finally {
        await relay.ctx.options.set('GroupRoutingMode', '{}');
      }
    });
  });
}
