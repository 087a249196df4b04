import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { drawingRow, taskRow } from './support/console-rows.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`drawing and task lists on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient & { userId: number };
    let alice: ConsoleClient & { userId: number };
    const t0 = 1_700_000_000;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await loginAs(server, { username: 'root1', role: Role.Root });
      alice = await loginAs(server, { username: 'alice' });
      const mj = Array.from({ length: 13 }, (_, i) => ({
        code: 1,
        user_id: i < 12 ? alice.userId : admin.userId,
        action: i % 2 ? 'UPSCALE' : 'IMAGINE',
        mj_id: `mj-${i}`,
        prompt: `a cat ${i}`,
        prompt_en: `a cat ${i}`,
        submit_time: (t0 + i * 60) * 1000,
        finish_time: (t0 + i * 60 + 30) * 1000,
        status: 'SUCCESS',
        progress: '100%',
        channel_id: i % 3 === 0 ? 7 : 8,
        image_url: `https://img.example/${i}.png`,
      }));
      await server.ctx.db.db.insertInto('midjourneys').values(mj.map(drawingRow)).execute();
      const tasks = Array.from({ length: 11 }, (_, i) => ({
        created_at: t0 + i,
        task_id: `task-${i}`,
        platform: 'suno',
        user_id: i < 10 ? alice.userId : admin.userId,
        channel_id: i % 2 ? 5 : 6,
        action: i % 2 ? 'LYRICS' : 'MUSIC',
        status: i === 0 ? 'FAILURE' : 'SUCCESS',
        fail_reason: i === 0 ? 'upstream said no' : '',
        submit_time: t0 + i * 60,
        finish_time: t0 + i * 60 + 90,
        progress: '100%',
      }));
      await server.ctx.db.db.insertInto('tasks').values(tasks.map(taskRow)).execute();
    });
    afterAll(() => server?.close());

    it('pages drawing jobs ten at a time, newest first, with p from 0', async () => {
      const first = await admin.get('/api/mj/?p=0');
      expect(first.success).toBe(true);
      expect(first.data.map((r: { mj_id: string }) => r.mj_id)).toEqual(
        Array.from({ length: 10 }, (_, i) => `mj-${12 - i}`),
      );
      const second = await admin.get('/api/mj/?p=1');
      expect(second.data.map((r: { mj_id: string }) => r.mj_id)).toEqual(['mj-2', 'mj-1', 'mj-0']);
      expect((await admin.get('/api/mj/?p=2')).data).toEqual([]);
    });

    it('filters drawing jobs by channel, job id and submit time in milliseconds', async () => {
      const ch = await admin.get('/api/mj/?channel_id=7');
      expect(ch.data.map((r: { mj_id: string }) => r.mj_id)).toEqual([
        'mj-12',
        'mj-9',
        'mj-6',
        'mj-3',
        'mj-0',
      ]);
      const one = await admin.get('/api/mj/?mj_id=mj-4');
      expect(one.data).toEqual([
        expect.objectContaining({ mj_id: 'mj-4', prompt: 'a cat 4', channel_id: 8, action: 'IMAGINE' }),
      ]);
      const range = await admin.get(
        `/api/mj/?start_timestamp=${(t0 + 120) * 1000}&end_timestamp=${(t0 + 240) * 1000}`,
      );
      expect(range.data.map((r: { mj_id: string }) => r.mj_id)).toEqual(['mj-4', 'mj-3', 'mj-2']);
    });

    it('shows users only their own drawing jobs, without the channel', async () => {
      const own = await alice.get('/api/mj/self/?p=1');
      expect(own.data.map((r: { mj_id: string }) => r.mj_id)).toEqual(['mj-1', 'mj-0']);
      expect(own.data[0]).not.toHaveProperty('channel_id');
      const notMine = await alice.get('/api/mj/self/?mj_id=mj-12');
      expect(notMine.data).toEqual([]);
      expect((await alice.get('/api/mj/')).status).toBe(403);
    });

    it('pages and filters generic tasks with times in seconds', async () => {
      const first = await admin.get('/api/task/?p=0');
      expect(first.data).toHaveLength(10);
      expect(first.data[0]).toMatchObject({ task_id: 'task-10', platform: 'suno', channel_id: 6 });
      expect((await admin.get('/api/task/?p=1')).data.map((r: { task_id: string }) => r.task_id)).toEqual([
        'task-0',
      ]);
      const ch = await admin.get('/api/task/?channel_id=5');
      expect(ch.data.every((r: { channel_id: number }) => r.channel_id === 5)).toBe(true);
      const range = await admin.get(`/api/task/?start_timestamp=${t0 + 60}&end_timestamp=${t0 + 120}`);
      expect(range.data.map((r: { task_id: string }) => r.task_id)).toEqual(['task-2', 'task-1']);
      const failed = await admin.get('/api/task/?task_id=task-0');
      expect(failed.data[0]).toMatchObject({
        status: 'FAILURE',
        fail_reason: 'upstream said no',
        action: 'MUSIC',
      });
    });

    it('shows users only their own tasks, without the channel', async () => {
      const own = await alice.get('/api/task/self?p=0');
      expect(own.data).toHaveLength(10);
      expect(own.data.map((r: { task_id: string }) => r.task_id)).not.toContain('task-10');
      expect(own.data[0]).not.toHaveProperty('channel_id');
      expect((await alice.get('/api/task/')).status).toBe(403);
    });

    it('refuses bad paging and time input with a 400', async () => {
      for (const path of [
        '/api/mj/?p=-1',
        '/api/mj/?start_timestamp=yesterday',
        '/api/task/?p=1.5',
        '/api/task/self?end_timestamp=-4',
      ]) {
        const res = await admin.get(path);
        expect(res.status, path).toBe(400);
        expect(res.success).toBe(false);
      }
    });
  });
}
