import { describe, expect, it } from 'vitest';
import { ownTask } from '../src/relay/tasks/suno/store.ts';
import { DATABASES } from './support/databases.ts';
import { LYRICS, MUSIC, SECRET, SunoRelay } from './support/suno-relay.ts';
import { START } from './support/task-relay.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Suno relay on ${engine.name}`, () => {
    const relay = new SunoRelay(engine);

    it('submits a song, charges its price through the ledger with a log row, and records the task', async () => {
      const { user, token } = await relay.account();
      const r = await relay.call('POST', '/suno/submit/MUSIC', token.apiKey, {
        prompt: '[Verse]\nsalt on the window',
        tags: 'folk',
        title: 'Salt',
        make_instrumental: false,
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ code: 'success', message: '', data: expect.any(String) });
      const id = r.body.data as string;
      const upstream = relay.upstream.calls.findLast((c) => c.path.startsWith('/suno/submit/'));
      expect(upstream?.path).toBe('/suno/submit/MUSIC');
      expect(upstream?.authorization).toBe(`Bearer ${SECRET}`);
      expect(upstream?.body).toEqual({
        prompt: '[Verse]\nsalt on the window',
        tags: 'folk',
        title: 'Salt',
        make_instrumental: false,
        mv: 'chirp-v3-0',
      });
      await relay.expectChargedOnce(user.id, token, {
        quota: MUSIC,
        model: 'suno_music',
        content: `操作 MUSIC，ID ${id}`,
      });
      const row = await ownTask(relay.ctx, user.id, id);
      expect(row).toMatchObject({
        platform: 'suno',
        action: 'MUSIC',
        status: 'NOT_START',
        progress: '0%',
        quota: MUSIC,
        channel_id: relay.channelId,
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
      const { user, token } = await relay.account({ remain: MUSIC * 7 + MUSIC / 2 });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          relay.call('POST', '/suno/submit/MUSIC', token.apiKey, {
            prompt: `song ${i}`,
            tags: 'folk',
            title: `S${i}`,
          }),
        ),
      );
      expect(results.filter((r) => r.status === 200 && r.body.code === 'success')).toHaveLength(7);
      const b = await relay.books(user.id, token.id);
      expect(b.logs).toHaveLength(7);
      expect(b.remain).toBe(MUSIC / 2);
      expect(b.remain + b.logSum).toBe(MUSIC * 7 + MUSIC / 2);
    });

    it('writes lyrics at the lyrics price; the proxy finished them before it answered', async () => {
      const { user, token } = await relay.account();
      const r = await relay.call('POST', '/suno/submit/lyrics', token.apiKey, {
        prompt: 'a harbour at night',
      });
      expect(r.body.code).toBe('success');
      const id = r.body.data as string;
      const got = await relay.call('GET', `/suno/fetch/${id}`, token.apiKey);
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
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START - LYRICS);
      expect(b.logs.map((l) => [l.model_name, l.quota])).toEqual([['suno_lyrics', LYRICS]]);
    });

    it("answers task_not_exist for an unknown task and for another user's task, and bills nothing", async () => {
      const owner = await relay.account();
      const other = await relay.account();
      const id = await relay.music(owner.token.apiKey);
      for (const [method, path, body] of [
        ['GET', `/suno/fetch/${id}`, undefined],
        ['GET', '/suno/fetch/00000000-0000-0000-0000-000000000000', undefined],
        ['POST', '/suno/submit/music', { prompt: 'more', continue_clip_id: 'c1', task_id: id }],
      ] as const) {
        const r = await relay.call(method, path, other.token.apiKey, body);
        expect(r.status, path).toBe(400);
        expect(r.body, path).toEqual({ code: 'task_not_exist', message: 'task_not_exist', data: null });
      }
      expect((await relay.call('POST', '/suno/fetch', other.token.apiKey, { ids: [id] })).body).toEqual({
        code: 'success',
        message: '',
        data: [],
      });
      const b = await relay.books(other.user.id, other.token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      expect(await relay.taskRows(other.user.id)).toEqual([]);
    });

    it('refuses malformed submits with a 4xx and code/message, and bills nothing', async () => {
      const { user, token } = await relay.account();
      const before = relay.upstream.calls.length;
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
        const r = await relay.call('POST', path, token.apiKey, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        expect(r.body.code, path).toBe('invalid_request');
        expect(r.body.data).toBeNull();
        if (message) expect(r.body.message, path).toBe(message);
        else expect(r.body.message, path).toMatch(/JSON/i);
      }
      expect((await relay.call('POST', '/suno/fetch', token.apiKey, { ids: 'abc' })).body).toMatchObject({
        code: 'invalid_request',
        message: 'ids must be a list of task ids',
      });
      expect(relay.upstream.calls.length).toBe(before);
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs).toEqual([]);
      const noKey = await relay.call('POST', '/suno/submit/music', 'sk-wrong', { prompt: 'x' });
      expect(noKey.status).toBe(401);
      expect(noKey.body).toMatchObject({ code: 'invalid_api_key', data: null });
      const poor = await relay.account({ quota: 100 });
      const broke = await relay.call('POST', '/suno/submit/music', poor.token.apiKey, { prompt: 'x' });
      expect(broke.status).toBe(403);
      expect(broke.body).toMatchObject({ code: 'quota_not_enough', data: null });
      expect(relay.upstream.calls.length).toBe(before);
    });

    it('releases the charge at once when the upstream refuses or fails, and never shows the channel key', async () => {
      const { user, token } = await relay.account();
      relay.upstream.refuseNext(400, 'invalid_request', 'prompt contains banned words');
      const bad = await relay.call('POST', '/suno/submit/music', token.apiKey, { prompt: 'a bad song' });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        code: 'invalid_request',
        message: 'prompt contains banned words',
        data: null,
      });
      relay.upstream.refuseNext(500, 'internal_error', `account ${SECRET} has no credits left`);
      const broken = await relay.call('POST', '/suno/submit/music', token.apiKey, { prompt: 'a sad song' });
      expect(broken.status).toBe(502);
      expect(broken.body.code).toBe('internal_error');
      expect(broken.body.message).toBe('account *** has no credits left');
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.remain).toBe(START);
      expect(b.logs).toEqual([]);
      expect(relay.state.users.peekBalance(user.id)?.available).toBe(START);
      expect(await relay.taskRows(user.id)).toEqual([]);
    });

    it('sends a continuation to the channel of the task it extends', async () => {
      await relay.withChannel({ key: SECRET }, async (other) => {
        const { user, token } = await relay.account();
        const first = await relay.music(token.apiKey);
        expect((await ownTask(relay.ctx, user.id, first))?.channel_id).toBe(other);
        // The parent now lives on the first channel: the continuation follows it, not the higher priority.
        await relay.ctx.db.db
          .updateTable('tasks')
          .set({ channel_id: relay.channelId })
          .where('task_id', '=', first)
          .execute();
        const clip = (relay.upstream.tasks.get(first)!.data as Array<{ id: string }>)[0].id;
        const r = await relay.call('POST', '/suno/submit/music', token.apiKey, {
          prompt: '[Bridge]\nand the tide comes in',
          continue_clip_id: clip,
          continue_at: 60,
          task_id: first,
        });
        expect(r.body.code).toBe('success');
        expect((await ownTask(relay.ctx, user.id, r.body.data))?.channel_id).toBe(relay.channelId);
      });
    });

    it('tries another channel after an upstream fault when RetryTimes allows, and charges once', async () => {
      await relay.withChannel({ key: 'dead-key', baseUrl: 'http://127.0.0.1:9' }, async () => {
        await relay.ctx.options.set('RetryTimes', '1');
        const { user, token } = await relay.account();
        const id = await relay.music(token.apiKey);
        expect((await ownTask(relay.ctx, user.id, id))?.channel_id).toBe(relay.channelId);
        const b = await relay.books(user.id, token.id);
        expect(b.quota).toBe(START - MUSIC);
        expect(b.logs.map((l) => [l.quota, l.channel_id])).toEqual([[MUSIC, relay.channelId]]);
      });
    });

    it('disables a channel whose key the upstream refuses, as the relay does, and serves the song elsewhere', async () => {
      await relay.withChannel({ key: 'a-revoked-secret' }, async (refused) => {
        await relay.ctx.options.set('RetryTimes', '1');
        await relay.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
        const { user, token } = await relay.account();
        const id = await relay.music(token.apiKey);
        expect((await ownTask(relay.ctx, user.id, id))?.channel_id).toBe(relay.channelId);
        await relay.expectAutoDisabled(refused, 'suno_music');
      });
    });
  });
}
