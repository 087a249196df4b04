import { describe, expect, it } from 'vitest';
import { sunoTasks } from '../src/relay/tasks/suno/refresh.ts';
import { ownTask } from '../src/relay/tasks/suno/store.ts';
import { DATABASES } from './support/databases.ts';
import { MUSIC, SUNO, SunoRelay } from './support/suno-relay.ts';
import { START, withLoopingGateway } from './support/task-relay.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Suno relay on ${engine.name}`, () => {
    const relay = new SunoRelay(engine);

    it('fetches progress, then success with the clips, from the record refreshed when stale', async () => {
      const { token } = await relay.account();
      const id = await relay.music(token.apiKey);
      relay.upstream.advance(id, 'queued');
      // Never looked at: the fetch asks the upstream before answering.
      const first = await relay.call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        code: 'success',
        data: { task_id: id, action: 'MUSIC', status: 'QUEUED', progress: '20%', fail_reason: '' },
      });
      expect(first.body.data.data).toHaveLength(2);
      // Looked at a moment ago: the record answers without asking again.
      const asked = relay.upstream.calls.filter((c) => c.path === '/suno/fetch').length;
      relay.upstream.advance(id, 'streaming');
      const again = await relay.call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(again.body.data.status).toBe('QUEUED');
      expect(relay.upstream.calls.filter((c) => c.path === '/suno/fetch').length).toBe(asked);
      await relay.poll();
      const mid = await relay.call('GET', `/suno/fetch/${id}`, token.apiKey);
      expect(mid.body.data).toMatchObject({ status: 'IN_PROGRESS', progress: '50%' });
      expect(mid.body.data.start_time).toBeGreaterThan(0);
      relay.upstream.advance(id, 'complete');
      await relay.poll();
      const done = await relay.call('POST', '/suno/fetch', token.apiKey, {
        ids: [id, 'no-such-task'],
        action: 'MUSIC',
      });
      expect(done.status).toBe(200);
      expect(done.body.code).toBe('success');
      expect(done.body.data).toHaveLength(1);
      const t = done.body.data[0];
      expect(t).toMatchObject({ task_id: id, status: 'SUCCESS', progress: '100%', fail_reason: '' });
      expect(t.finish_time).toBeGreaterThanOrEqual(t.submit_time);
      expect(t.data).toEqual(relay.upstream.tasks.get(id)?.data);
      expect(t.data[0]).toMatchObject({
        status: 'complete',
        audio_url: expect.stringMatching(/^https:\/\/cdn1\.suno\.ai\/.+\.mp3$/),
      });
    });

    it('refunds a failed task exactly once with 20 concurrent fetches racing the loop', async () => {
      const { user, token } = await relay.account();
      const id = await relay.music(token.apiKey, 'doomed');
      relay.upstream.advance(id, 'error', 'Song description contains artist name');
      const state = relay.state;
      const [one, many] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => relay.call('GET', `/suno/fetch/${id}`, token.apiKey))),
        Promise.all(
          Array.from({ length: 10 }, () => relay.call('POST', '/suno/fetch', token.apiKey, { ids: [id] })),
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
      const b = await relay.expectRefunded(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([MUSIC, -MUSIC]);
      expect(b.logs[1].content).toContain(id);
      const channel = await relay.ctx.db.db
        .selectFrom('channels')
        .select('used_quota')
        .where('id', '=', relay.channelId)
        .executeTakeFirstOrThrow();
      const channelLogs = await relay.ctx.logDb.db
        .selectFrom('logs')
        .select((eb) => eb.fn.sum<number>('quota').as('sum'))
        .where('channel_id', '=', relay.channelId)
        .where('type', '=', 2)
        .executeTakeFirstOrThrow();
      expect(Number(channel.used_quota)).toBe(Number(channelLogs.sum));
      expect(await ownTask(relay.ctx, user.id, id)).toMatchObject({
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'Song description contains artist name',
      });
    });

    it('lets exactly one of 20 concurrent final updates refund', async () => {
      const { user, token } = await relay.account();
      const id = await relay.music(token.apiKey, 'raced');
      const row = await ownTask(relay.ctx, user.id, id);
      const state = relay.state;
      await relay.expectOneRefundOf20(user.id, token.id, MUSIC, (i) =>
        sunoTasks.apply(state, row!, { status: 'FAILURE', fail_reason: `racer ${i}`, progress: '100%' }),
      );
    });

    it('fails and refunds a task unfinished past the timeout, and keeps polling through upstream errors', async () => {
      const { user, token } = await relay.account();
      const slow = await relay.music(token.apiKey, 'slow');
      const patient = await relay.music(token.apiKey, 'patient');
      await relay.ctx.db.db
        .updateTable('tasks')
        .set({ submit_time: Math.floor(Date.now() / 1000) - 61 * 60 })
        .where('task_id', '=', slow)
        .execute();
      relay.upstream.failFetches(1);
      await relay.poll();
      expect(await ownTask(relay.ctx, user.id, slow)).toMatchObject({
        status: 'FAILURE',
        fail_reason: expect.stringContaining('timed out'),
      });
      expect((await ownTask(relay.ctx, user.id, patient))?.status).toBe('NOT_START');
      relay.upstream.advance(patient, 'complete');
      await relay.poll();
      expect((await ownTask(relay.ctx, user.id, patient))?.status).toBe('SUCCESS');
      const b = await relay.books(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([MUSIC, MUSIC, -MUSIC]);
      expect(b.quota).toBe(START - MUSIC);
    });

    it('shows the task log to its owner, hides it from others, and shows everything to admins', async () => {
      const { owner, other, token } = await relay.logUsers('suno');
      const id = await relay.music(token.apiKey, 'for the log');
      relay.upstream.advance(id, 'complete');
      await relay.poll();
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
      expect(JSON.parse(mine.data[0].data)).toEqual(relay.upstream.tasks.get(id)?.data);
      expect((await owner.get('/api/task/self?status=success&action=music')).data).toHaveLength(1);
      expect((await owner.get('/api/task/self?status=FAILURE')).data).toEqual([]);
      expect((await other.get(`/api/task/self?task_id=${id}`)).data).toEqual([]);
      // A user's query cannot reach past their own rows.
      expect((await other.get(`/api/task/self?channel_id=${relay.channelId}`)).data).toEqual([]);
      expect((await other.get('/api/task/')).status).toBe(403);
      const all = await relay.admin.get(`/api/task/?task_id=${id}`);
      expect(all.data).toEqual([
        expect.objectContaining({ task_id: id, user_id: owner.userId, channel_id: relay.channelId }),
      ]);
      expect(
        (await relay.admin.get(`/api/task/?channel_id=${relay.channelId}&task_id=${id}`)).data,
      ).toHaveLength(1);
      expect(
        (await relay.admin.get(`/api/task/?channel_id=${relay.channelId + 999}&task_id=${id}`)).data,
      ).toEqual([]);
      expect((await relay.admin.get('/api/task/?p=-1')).status).toBe(400);
    });
  });
}

describe('the Suno task loop', () => {
  it('runs on the master by itself and brings tasks to their end', async () => {
    await withLoopingGateway(SUNO, async ({ server, upstream: suno, userId, apiKey }) => {
      const res = await fetch(`${server.url}/suno/submit/music`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ gpt_description_prompt: 'an upbeat song about tea' }),
      });
      const { data: id } = (await res.json()) as { data: string };
      suno.advance(id, 'complete');
      await expect
        .poll(async () => (await ownTask(server.ctx, userId, id))?.status, { timeout: 5000 })
        .toBe('SUCCESS');
      expect(suno.calls.some((c) => c.path === '/suno/fetch' && c.body.ids.includes(id))).toBe(true);
    });
  });
});
