import { describe, expect, it } from 'vitest';
import { midjourneyTasks } from '../src/relay/tasks/midjourney/refresh.ts';
import { tasksByMjId } from '../src/relay/tasks/midjourney/store.ts';
import { DATABASES } from './support/databases.ts';
import { IMAGINE, MIDJOURNEY, MidjourneyRelay } from './support/midjourney-relay.ts';
import { PNG } from './support/mock-midjourney.ts';
import { START, withLoopingGateway } from './support/task-relay.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`Midjourney relay on ${engine.name}`, () => {
    const relay = new MidjourneyRelay(engine);

    it('fetches progress, then success with the image behind the signed proxy and the buttons', async () => {
      const { token } = await relay.account();
      const id = await relay.imagine(token.apiKey);
      relay.upstream.advance(id, 'progress', '45%');
      // Never looked at: the fetch asks the upstream before answering.
      const first = await relay.call('GET', `/mj/task/${id}/fetch`, token.apiKey);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id, action: 'IMAGINE', status: 'IN_PROGRESS', progress: '45%' });
      relay.upstream.advance(id, 'progress', '80%');
      await relay.poll();
      const mid = await relay.call('GET', `/mj/task/${id}/fetch`, token.apiKey);
      expect(mid.body).toMatchObject({ status: 'IN_PROGRESS', progress: '80%' });
      relay.upstream.advance(id, 'success');
      await relay.poll();
      const done = await relay.call('GET', `/mj/task/${id}/fetch`, token.apiKey);
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
      const img = await fetch(`${relay.server.url}${path}`);
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);
      const forged = await fetch(`${relay.server.url}/mj/image/${id}?sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
      expect(forged.status).toBe(404);
      expect(await forged.json()).toMatchObject({ code: 3 });
      const listed = await relay.call('POST', '/mj/task/list-by-condition', token.apiKey, {
        ids: [id, 'nope'],
      });
      expect(listed.body.map((t: { id: string }) => t.id)).toEqual([id]);
    });

    it('refunds a failed task exactly once with 20 fetches and a notify callback racing the loop', async () => {
      await relay.ctx.options.set('MjNotifyEnabled', 'true');
      const { user, token } = await relay.account();
      const id = await relay.imagine(token.apiKey, 'doomed');
      expect(relay.upstream.tasks.get(id)?.properties.notifyHook).toBe('https://gateway.example/mj/notify');
      relay.upstream.advance(id, 'failure', 'Banned prompt detected');
      const state = relay.state;
      const [fetches, notified] = await Promise.all([
        Promise.all(
          Array.from({ length: 20 }, () => relay.call('GET', `/mj/task/${id}/fetch`, token.apiKey)),
        ),
        fetch(`${relay.server.url}/mj/notify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(relay.upstream.tasks.get(id)),
        }),
        midjourneyTasks.poll(state),
        midjourneyTasks.poll(state),
      ]);
      expect(notified.status).toBe(200);
      for (const f of fetches)
        expect(f.body).toMatchObject({ id, status: 'FAILURE', failReason: 'Banned prompt detected' });
      await midjourneyTasks.poll(state);
      const b = await relay.expectRefunded(user.id, token.id);
      expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE, -IMAGINE]);
      expect(b.logs[1].content).toContain(id);
      const [row] = await tasksByMjId(relay.ctx, id);
      expect(row).toMatchObject({
        status: 'FAILURE',
        progress: '100%',
        fail_reason: 'Banned prompt detected',
      });
    });

    it('lets exactly one of 20 concurrent final updates refund', async () => {
      const { user, token } = await relay.account();
      const id = await relay.imagine(token.apiKey, 'raced');
      const [row] = await tasksByMjId(relay.ctx, id);
      const state = relay.state;
      await relay.expectOneRefundOf20(user.id, token.id, IMAGINE, (i) =>
        midjourneyTasks.apply(state, row, {
          status: 'FAILURE',
          fail_reason: `racer ${i}`,
          progress: '100%',
          updated_at: Date.now(),
        }),
      );
    });

    it('fails and refunds a task unfinished past the timeout', async () => {
      const { user, token } = await relay.account();
      const id = await relay.imagine(token.apiKey, 'slow');
      await relay.ctx.db.db
        .updateTable('midjourneys')
        .set({ submit_time: Date.now() - 61 * 60_000 })
        .where('mj_id', '=', id)
        .execute();
      await relay.poll();
      const [row] = await tasksByMjId(relay.ctx, id);
      expect(row.status).toBe('FAILURE');
      expect(row.fail_reason).toContain('timed out');
      const b = await relay.books(user.id, token.id);
      expect(b.quota).toBe(START);
      expect(b.logs.map((l) => l.quota)).toEqual([IMAGINE, -IMAGINE]);
    });

    it('keeps polling through upstream errors without failing or refunding', async () => {
      const { user, token } = await relay.account();
      const id = await relay.imagine(token.apiKey, 'patient');
      relay.upstream.failLists(1);
      await relay.poll();
      expect((await tasksByMjId(relay.ctx, id))[0].status).toBe('SUBMITTED');
      relay.upstream.advance(id, 'success');
      await relay.poll();
      expect((await tasksByMjId(relay.ctx, id))[0].status).toBe('SUCCESS');
      expect((await relay.books(user.id, token.id)).quota).toBe(START - IMAGINE);
    });

    it('shows the drawing log to its owner, hides it from others, and shows everything to admins', async () => {
      const { owner, other, token } = await relay.logUsers('mj');
      const id = await relay.imagine(token.apiKey, 'for the log');
      relay.upstream.advance(id, 'success');
      await relay.poll();
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
      const all = await relay.admin.get(`/api/mj/?mj_id=${id}`);
      expect(all.data).toEqual([
        expect.objectContaining({ mj_id: id, user_id: owner.userId, channel_id: relay.channelId }),
      ]);
    });
  });
}

describe('the Midjourney task loop', () => {
  it('runs on the master by itself and brings tasks to their end', async () => {
    await withLoopingGateway(MIDJOURNEY, async ({ server, upstream: proxy, apiKey }) => {
      const res = await fetch(`${server.url}/mj/submit/imagine`, {
        method: 'POST',
        headers: { 'mj-api-secret': apiKey, 'content-type': 'application/json' },
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
    });
  });
});
