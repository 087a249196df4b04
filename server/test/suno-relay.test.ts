import { ChannelStatus, Role } from '@modelgate/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { sunoTasks } from '../src/relay/tasks/suno/refresh.ts';
import { ownTask } from '../src/relay/tasks/suno/store.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { type SunoApi, startSunoApi } from './support/mock-suno.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const SECRET = 'suno-api-secret-0123';
const START = 1_000_000;
/** US$0.1 (suno_music) and US$0.01 (suno_lyrics) at 500000 quota per dollar, group ratio 1. */
const MUSIC = 50_000;
const LYRICS = 5_000;
const MODELS = ['suno_music', 'suno_lyrics'];

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Suno relay on ${engine.name}`, () => {
    let server: TestServer;
    let suno: SunoApi;
    let channelId: number;
    let admin: ConsoleClient & { userId: number };

    beforeAll(async () => {
      suno = await startSunoApi(SECRET);
      // The task loop is driven by the tests (sunoTasks.poll) so every step is deterministic.
      server = await startServer({ db: engine, env: { TASK_POLL_INTERVAL: '0' } });
      admin = await loginAs(server, { username: 'sunoroot', role: Role.Root });
      ({ id: channelId } = await seedChannel(server.ctx, {
        type: 36,
        baseUrl: suno.url,
        key: SECRET,
        models: MODELS,
      }));
    });
    afterAll(async () => {
      await server?.close();
      await suno?.close();
    });
    beforeEach(async () => {
      await server.ctx.options.set('RetryTimes', '0');
    });

    async function account(opts: { quota?: number; remain?: number } = {}) {
      const user = await seedUser(server.ctx, { quota: opts.quota ?? START });
      const token = await seedToken(server.ctx, { userId: user.id, remain: opts.remain ?? START });
      return { user, token };
    }

    const call = async (method: string, path: string, apiKey: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
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
        logs: logs.map((l) => ({
          ...l,
          quota: Number(l.quota),
          channel_id: Number(l.channel_id),
          token_id: Number(l.token_id),
        })),
        logSum: logs.reduce((s, l) => s + Number(l.quota), 0),
      };
    }

    const taskRows = (userId: number) =>
      server.ctx.db.db.selectFrom('tasks').selectAll().where('user_id', '=', userId).execute();

    async function music(apiKey: string, prompt = 'a sea shanty about a lighthouse keeper') {
      const r = await call('POST', '/suno/submit/music', apiKey, {
        prompt,
        tags: 'folk, shanty',
        title: 'Keeper',
      });
      expect(r.status).toBe(200);
      expect(r.body.code).toBe('success');
      return r.body.data as string;
    }

    it('submits a song, charges its price through the ledger with a log row, and records the task', async () => {
      const { user, token } = await account();
      const r = await call('POST', '/suno/submit/MUSIC', token.apiKey, {
        prompt: '[Verse]\nsalt on the window',
        tags: 'folk',
        title: 'Salt',
        make_instrumental: false,
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ code: 'success', message: '', data: expect.any(String) });
      const id = r.body.data as string;
      const upstream = suno.calls.findLast((c) => c.path.startsWith('/suno/submit/'));
      expect(upstream?.path).toBe('/suno/submit/MUSIC');
      expect(upstream?.authorization).toBe(`Bearer ${SECRET}`);
      expect(upstream?.body).toEqual({
        prompt: '[Verse]\nsalt on the window',
        tags: 'folk',
        title: 'Salt',
        make_instrumental: false,
        mv: 'chirp-v3-0',
      });
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START - MUSIC);
      expect(b.remain).toBe(START - MUSIC);
      expect(b.used).toBe(MUSIC);
      expect(b.logs).toEqual([
        expect.objectContaining({
          quota: MUSIC,
          model_name: 'suno_music',
          channel_id: channelId,
          token_id: token.id,
        }),
      ]);
      expect(b.logs[0].content).toContain(`操作 MUSIC，ID ${id}`);
      const row = await ownTask(server.ctx, user.id, id);
      expect(row).toMatchObject({
        platform: 'suno',
        action: 'MUSIC',
        status: 'NOT_START',
        progress: '0%',
        quota: MUSIC,
        channel_id: channelId,
        token_id: token.id,
        group: 'default',
      });
      expect(JSON.parse(row?.properties ?? '')).toEqual({
        prompt: '[Verse]\nsalt on the window',
        title: 'Salt',
        tags: 'folk',
        mv: 'chirp-v3-0',
      });
    });

    it('200 concurrent songs against a token quota for seven: seven served, nothing overdrawn', async () => {
      const { user, token } = await account({ remain: MUSIC * 7 + MUSIC / 2 });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          call('POST', '/suno/submit/MUSIC', token.apiKey, {
            prompt: `song ${i}`,
            tags: 'folk',
            title: `S${i}`,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 200 && r.body.code === 'success')).toHaveLength(7);
      const b = await books(user.id, token.id);
      expect(b.logs).toHaveLength(7);
      expect(b.remain).toBe(MUSIC / 2);
      expect(b.remain + b.logSum).toBe(MUSIC * 7 + MUSIC / 2);
    });

    it('fetches progress, then success with the clips, from the record refreshed when stale', async () => {
      const { token } = await account();
      const id = await music(token.apiKey);
      suno.advance(id, 'queued');
      // Never looked at: the fetch asks the upstream before answering.
      const first = await call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        code: 'success',
        data: { task_id: id, action: 'MUSIC', status: 'QUEUED', progress: '20%', fail_reason: '' },
      });
      expect(first.body.data.data).toHaveLength(2);
      // Looked at a moment ago: the record answers without asking again.
      const asked = suno.calls.filter((c) => c.path === '/suno/fetch').length;
      suno.advance(id, 'streaming');
      const again = await call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(again.body.data.status).toBe('QUEUED');
      expect(suno.calls.filter((c) => c.path === '/suno/fetch').length).toBe(asked);
      await sunoTasks.poll(relayState(server.ctx));
      const mid = await call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(mid.body.data).toMatchObject({ status: 'IN_PROGRESS', progress: '50%' });
      expect(mid.body.data.start_time).toBeGreaterThan(0);
      suno.advance(id, 'complete');
      await sunoTasks.poll(relayState(server.ctx));
      const done = await call('POST', '/suno/fetch', token.apiKey, {
        ids: [id, 'no-such-task'],
        action: 'MUSIC',
      });
      expect(done.status).toBe(200);
      expect(done.body.code).toBe('success');
      expect(done.body.data).toHaveLength(1);
      const t = done.body.data[0];
      expect(t).toMatchObject({ task_id: id, status: 'SUCCESS', progress: '100%', fail_reason: '' });
      expect(t.finish_time).toBeGreaterThanOrEqual(t.submit_time);
      expect(t.data).toEqual(suno.tasks.get(id)?.data);
      expect(t.data[0]).toMatchObject({
        status: 'complete',
        audio_url: expect.stringMatching(/^https:\/\/cdn1\.suno\.ai\/.+\.mp3$/),
      });
    });

    it('writes lyrics at the lyrics price; the proxy finished them before it answered', async () => {
      const { user, token } = await account();
      const r = await call('POST', '/suno/submit/lyrics', token.apiKey, { prompt: 'a harbour at night' });
      expect(r.body.code).toBe('success');
      const id = r.body.data as string;
      const got = await call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(got.body.data).toMatchObject({
        task_id: id,
        action: 'LYRICS',
        status: 'SUCCESS',
        progress: '100%',
        data: {
          id,
          status: 'complete',
          title: 'Harbour Lights',
          text: expect.stringContaining('a harbour at night'),
        },
      });
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START - LYRICS);
      expect(b.logs.map((l) => [l.model_name, l.quota])).toEqual([['suno_lyrics', LYRICS]]);
    });

    it('sends a continuation to the channel of the task it extends', async () => {
      const other = await seedChannel(server.ctx, {
        type: 36,
        baseUrl: suno.url,
        key: SECRET,
        models: MODELS,
        priority: 10,
      });
      try {
        const { user, token } = await account();
        const first = await music(token.apiKey);
        expect((await ownTask(server.ctx, user.id, first))?.channel_id).toBe(other.id);
        // The parent now lives on the first channel: the continuation follows it, not the higher priority.
        await server.ctx.db.db
          .updateTable('tasks')
          .set({ channel_id: channelId })
          .where('task_id', '=', first)
          .execute();
        const clip = (suno.tasks.get(first)!.data as Array<{ id: string }>)[0].id;
        const r = await call('POST', '/suno/submit/music', token.apiKey, {
          prompt: '[Bridge]\nand the tide comes in',
          continue_clip_id: clip,
          continue_at: 60,
          task_id: first,
        });
        expect(r.body.code).toBe('success');
        expect((await ownTask(server.ctx, user.id, r.body.data))?.channel_id).toBe(channelId);
      } finally {
        await server.ctx.db.db.deleteFrom('channels').where('id', '=', other.id).execute();
        await server.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', other.id).execute();
        await relayState(server.ctx).channels.reload();
      }
    });

    it("answers task_not_exist for an unknown task and for another user's task, and bills nothing", async () => {
      const owner = await account();
      const other = await account();
      const id = await music(owner.token.apiKey);
      for (const [method, path, body] of [
        ['GET', `/suno/fetch/${id}`, undefined],
        ['GET', '/suno/fetch/00000000-0000-0000-0000-000000000000', undefined],
        ['POST', '/suno/submit/music', { prompt: 'more', continue_clip_id: 'c1', task_id: id }],
      ] as const) {
        const r = await call(method, path, other.token.apiKey, body);
        expect(r.status, path).toBe(400);
        expect(r.body, path).toEqual({ code: 'task_not_exist', message: 'task_not_exist', data: null });
      }
      expect((await call('POST', '/suno/fetch', other.token.apiKey, { ids: [id] })).body).toEqual({
        code: 'success',
        message: '',
        data: [],
      });
      const b = await books(other.user.id, other.token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      expect(await taskRows(other.user.id)).toEqual([]);
    });

    it('refuses malformed submits with a 4xx and code/message, and bills nothing', async () => {
      const { user, token } = await account();
      const before = suno.calls.length;
      for (const [path, body, message] of [
        ['/suno/submit/video', { prompt: 'x' }, 'invalid_action'],
        ['/suno/submit/lyrics', { prompt: '   ' }, 'prompt_empty'],
        ['/suno/submit/lyrics', {}, 'prompt_empty'],
        ['/suno/submit/music', {}, 'prompt, gpt_description_prompt or tags is required'],
        ['/suno/submit/music', { prompt: 'x', mv: 3 }, 'mv must be a string'],
        [
          '/suno/submit/music',
          { prompt: 'x', make_instrumental: 'yes' },
          'make_instrumental must be true or false',
        ],
        ['/suno/submit/music', { prompt: 'x', continue_clip_id: 'abc' }, 'task id is empty'],
        ['/suno/submit/music', { prompt: 'x', continue_at: -1 }, 'continue_at must be a number of seconds'],
        ['/suno/submit/music', '{"prompt": ', undefined],
        ['/suno/submit/music', '[1,2]', 'the request body must be a JSON object'],
      ] as const) {
        const r = await call('POST', path, token.apiKey, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.code, path).toBe('invalid_request');
        expect(r.body.data).toBeNull();
        if (message) expect(r.body.message, path).toBe(message);
        else expect(r.body.message, path).toMatch(/JSON/i);
      }
      expect((await call('POST', '/suno/fetch', token.apiKey, { ids: 'abc' })).body).toMatchObject({
        code: 'invalid_request',
        message: 'ids must be a list of task ids',
      });
      expect(suno.calls.length).toBe(before);
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      const noKey = await call('POST', '/suno/submit/music', 'sk-wrong', { prompt: 'x' });
      expect(noKey.status).toBe(401);
      expect(noKey.body).toMatchObject({ code: 'invalid_api_key', data: null });
      const poor = await account({ quota: 100 });
      const broke = await call('POST', '/suno/submit/music', poor.token.apiKey, { prompt: 'x' });
      expect(broke.status).toBe(403);
      expect(broke.body).toMatchObject({ code: 'quota_not_enough', data: null });
      expect(suno.calls.length).toBe(before);
    });

    it('releases the charge at once when the upstream refuses or fails, and never shows the channel key', async () => {
      const { user, token } = await account();
      suno.refuseNext(400, 'invalid_request', 'prompt contains banned words');
      const bad = await call('POST', '/suno/submit/music', token.apiKey, { prompt: 'a bad song' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        code: 'invalid_request',
        message: 'prompt contains banned words',
        data: null,
      });
      suno.refuseNext(500, 'internal_error', `account ${SECRET} has no credits left`);
      const broken = await call('POST', '/suno/submit/music', token.apiKey, { prompt: 'a sad song' });
      expect(broken.status).toBe(502);
      expect(broken.body.code).toBe('internal_error');
      expect(broken.body.message).toBe('account *** has no credits left');
      const b = await books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.logs).toEqual([]);
      expect(relayState(server.ctx).users.peekBalance(user.id)?.available).toBe(START);
      expect(await taskRows(user.id)).toEqual([]);
    });

    it('tries another channel after an upstream fault when RetryTimes allows, and charges once', async () => {
      const dead = await seedChannel(server.ctx, {
        type: 36,
        baseUrl: 'http://127.0.0.1:9',
        key: 'dead-key',
        models: MODELS,
        priority: 10,
      });
      try {
        await server.ctx.options.set('RetryTimes', '1');
        const { user, token } = await account();
        const id = await music(token.apiKey);
        expect((await ownTask(server.ctx, user.id, id))?.channel_id).toBe(channelId);
        const b = await books(user.id, token.id);
        expect(b.quota).toBe(START - MUSIC);
        expect(b.logs.map((l) => [l.quota, l.channel_id])).toEqual([[MUSIC, channelId]]);
      } finally {
        await server.ctx.db.db.deleteFrom('channels').where('id', '=', dead.id).execute();
        await server.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', dead.id).execute();
        await relayState(server.ctx).channels.reload();
      }
    });

    it('disables a channel whose key the upstream refuses, as the relay does, and serves the song elsewhere', async () => {
      const refused = await seedChannel(server.ctx, {
        type: 36,
        baseUrl: suno.url,
        key: 'a-revoked-secret',
        models: MODELS,
        priority: 10,
      });
      try {
        await server.ctx.options.set('RetryTimes', '1');
        await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
        const { user, token } = await account();
        const id = await music(token.apiKey);
        expect((await ownTask(server.ctx, user.id, id))?.channel_id).toBe(channelId);
        await expect
          .poll(async () => {
            const row = await server.ctx.db.db
              .selectFrom('channels')
              .select('status')
              .where('id', '=', refused.id)
              .executeTakeFirst();
            return row?.status;
          })
          .toBe(ChannelStatus.AutoDisabled);
        expect(
          relayState(server.ctx)
            .channels.tiers('default', 'suno_music')
            .flatMap((t) => t.channels.map((c) => c.id)),
        ).not.toContain(refused.id);
      } finally {
        await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
        await server.ctx.db.db.deleteFrom('channels').where('id', '=', refused.id).execute();
        await server.ctx.db.db.deleteFrom('abilities').where('channel_id', '=', refused.id).execute();
        await relayState(server.ctx).channels.reload();
      }
    });

    it('refunds a failed task exactly once with 20 concurrent fetches racing the loop', async () => {
      const { user, token } = await account();
      const id = await music(token.apiKey, 'doomed');
      suno.advance(id, 'error', 'Song description contains artist name');
      const state = relayState(server.ctx);
      const [one, many] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => call('GET', `/suno/fetch/${id}`, token.apiKey))),
        Promise.all(
          Array.from({ length: 10 }, () => call('POST', '/suno/fetch', token.apiKey, { ids: [id] })),
        ),
        sunoTasks.poll(state),
        sunoTasks.poll(state),
      ]);
      for (const f of one)
        expect(f.body.data).toMatchObject({
          task_id: id,
          status: 'FAILURE',
          fail_reason: 'Song description contains artist name',
        });
      for (const f of many) expect(f.body.data[0]).toMatchObject({ task_id: id, status: 'FAILURE' });
      await sunoTasks.poll(state);
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([MUSIC, -MUSIC]);
      expect(b.logs[1].content).toContain(id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.used).toBe(0);
      expect(b.tokenUsed).toBe(0);
      expect(b.used).toBe(b.logSum);
      expect(state.users.peekBalance(user.id)?.available).toBe(START);
      const channel = await server.ctx.db.db
        .selectFrom('channels')
        .select('used_quota')
        .where('id', '=', channelId)
        .executeTakeFirstOrThrow();
      const channelLogs = await server.ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum<number>('quota').as('sum'))
        .where('channel_id', '=', channelId)
        .where('type', '=', 2)
        .executeTakeFirstOrThrow();
      expect(Number(channel.used_quota)).toBe(Number(channelLogs.sum));
      expect(await ownTask(server.ctx, user.id, id)).toMatchObject({
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'Song description contains artist name',
      });
    });

    it('lets exactly one of 20 concurrent final updates refund', async () => {
      const { user, token } = await account();
      const id = await music(token.apiKey, 'raced');
      const row = await ownTask(server.ctx, user.id, id);
      const state = relayState(server.ctx);
      const won = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          sunoTasks.apply(state, row!, { status: 'FAILURE', fail_reason: `racer ${i}`, progress: '100%' }),
        ),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([MUSIC, -MUSIC]);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
    });

    it('fails and refunds a task unfinished past the timeout, and keeps polling through upstream errors', async () => {
      const { user, token } = await account();
      const slow = await music(token.apiKey, 'slow');
      const patient = await music(token.apiKey, 'patient');
      await server.ctx.db.db
        .updateTable('tasks')
        .set({ submit_time: Math.floor(Date.now() / 1000) - 61 * 60 })
        .where('task_id', '=', slow)
        .execute();
      suno.failFetches(1);
      await sunoTasks.poll(relayState(server.ctx));
      expect(await ownTask(server.ctx, user.id, slow)).toMatchObject({
        status: 'FAILURE',
        fail_reason: expect.stringContaining('timed out'),
      });
      expect((await ownTask(server.ctx, user.id, patient))?.status).toBe('NOT_START');
      suno.advance(patient, 'complete');
      await sunoTasks.poll(relayState(server.ctx));
      expect((await ownTask(server.ctx, user.id, patient))?.status).toBe('SUCCESS');
      const b = await books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([MUSIC, MUSIC, -MUSIC]);
      expect(b.quota).toBe(START - MUSIC);
    });

    it('shows the task log to its owner, hides it from others, and shows everything to admins', async () => {
      const owner = await loginAs(server, { username: `sunoowner-${engine.name}` });
      const other = await loginAs(server, { username: `sunoother-${engine.name}` });
      await server.ctx.db.db
        .updateTable('users')
        .set({ quota: START })
        .where('id', '=', owner.userId)
        .execute();
      server.ctx.bus.publish(`user:${owner.userId}`);
      const token = await seedToken(server.ctx, { userId: owner.userId, remain: START });
      const id = await music(token.apiKey, 'for the log');
      suno.advance(id, 'complete');
      await sunoTasks.poll(relayState(server.ctx));
      const mine = await owner.get(`/api/task/self?task_id=${id}`);
      expect(mine.data).toEqual([
        expect.objectContaining({
          task_id: id,
          platform: 'suno',
          action: 'MUSIC',
          status: 'SUCCESS',
          progress: '100%',
          quota: MUSIC,
        }),
      ]);
      expect(mine.data[0]).not.toHaveProperty('channel_id');
      expect(JSON.parse(mine.data[0].data)).toEqual(suno.tasks.get(id)?.data);
      expect((await owner.get('/api/task/self?status=success&action=music')).data).toHaveLength(1);
      expect((await owner.get('/api/task/self?status=FAILURE')).data).toEqual([]);
      expect((await other.get(`/api/task/self?task_id=${id}`)).data).toEqual([]);
      // A user's query cannot reach past their own rows.
      expect((await other.get(`/api/task/self?channel_id=${channelId}`)).data).toEqual([]);
      expect((await other.get('/api/task/')).status).toBe(403);
      const all = await admin.get(`/api/task/?task_id=${id}`);
      expect(all.data).toEqual([
        expect.objectContaining({ task_id: id, user_id: owner.userId, channel_id: channelId }),
      ]);
      expect((await admin.get(`/api/task/?channel_id=${channelId}&task_id=${id}`)).data).toHaveLength(1);
      expect((await admin.get(`/api/task/?channel_id=${channelId + 999}&task_id=${id}`)).data).toEqual([]);
      expect((await admin.get('/api/task/?p=-1')).status).toBe(400);
    });
  });
}

describe('the Suno task loop', () => {
  it('runs on the master by itself and brings tasks to their end', async () => {
    const suno = await startSunoApi(SECRET);
    const server = await startServer({ env: { TASK_POLL_INTERVAL: '0.1' } });
    try {
      await seedChannel(server.ctx, { type: 36, baseUrl: suno.url, key: SECRET, models: MODELS });
      const user = await seedUser(server.ctx, { quota: START });
      const token = await seedToken(server.ctx, { userId: user.id, remain: START });
      const res = await fetch(`${server.url}/suno/submit/music`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ gpt_description_prompt: 'an upbeat song about tea' }),
      });
      const { data: id } = (await res.json()) as { data: string };
      suno.advance(id, 'complete');
      await expect
        .poll(async () => (await ownTask(server.ctx, user.id, id))?.status, { timeout: 5000 })
        .toBe('SUCCESS');
      expect(suno.calls.some((c) => c.path === '/suno/fetch' && c.body.ids.includes(id))).toBe(true);
    } finally {
      await server.close();
      await suno.close();
    }
  });
});
