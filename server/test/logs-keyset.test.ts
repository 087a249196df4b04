import { Role } from '@modelgate/shared';
import type { Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogsTable } from '../src/db/schema.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { DATABASES } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

type Item = Record<string, any>;
interface Page {
  items: Item[];
  total: number;
  total_capped: boolean;
  page: number;
}

/** Keyset paging of the usage log: `before_time` + `before_id` alongside `p`, on every engine. */
for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`usage log keyset paging on ${engine.name}`, () => {
    let server: TestServer;
    let admin: ConsoleClient & { userId: number };
    let alice: ConsoleClient & { userId: number };
    let bob: ConsoleClient & { userId: number };
    const now = Math.floor(Date.now() / 1000);

    const list = async (client: ConsoleClient, path: string): Promise<Page> => {
      const r = await client.get(path);
      expect(r.success, r.message).toBe(true);
      return r.data as Page;
    };
    const cursorOf = (i: Item) => `before_time=${i.created_at}&before_id=${i.id}`;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      alice = await loginAs(server, { username: 'alice' });
      bob = await loginAs(server, { username: 'bob' });
      await server.ctx.logDb.db.deleteFrom('logs').execute();
      // 45 rows, three per second, so pages break inside a second: the id must order rows of equal time.
      // Alice's rows alternate between two models and are every third row an error; Bob's are interleaved.
      const rows: Insertable<LogsTable>[] = [];
      for (let i = 0; i < 45; i++) {
        const mine = i % 5 !== 4;
        rows.push({
          user_id: mine ? alice.userId : bob.userId,
          username: mine ? 'alice' : 'bob',
          created_at: now - 1000 + Math.floor(i / 3),
          type: i % 3 === 0 ? 5 : 2,
          content: '',
          token_name: 'default',
          token_id: 0,
          model_name: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
          quota: 10 + i,
          prompt_tokens: 1,
          completion_tokens: 1,
          use_time: 1,
          first_time: 100,
          is_stream: 0,
          channel_id: 0,
          group: 'default',
          ip: '',
          request_id: `req-${i}`,
          other: '',
        });
      }
      // Inserted newest first, so ids do not follow time: ordering must come from created_at, then id.
      await server.ctx.logDb.db.insertInto('logs').values(rows.reverse()).execute();
    });
    afterAll(() => server?.close());

    /** Every page by offset, then every page by cursor from the previous page's last row; both orders agree. */
    async function walk(client: ConsoleClient, base: string, size: number) {
      const byOffset: Item[] = [];
      for (let p = 1; ; p++) {
        const page = await list(client, `${base}&p=${p}&page_size=${size}`);
        byOffset.push(...page.items);
        if (page.items.length < size) break;
      }
      const byCursor: Item[] = [];
      let page = await list(client, `${base}&page_size=${size}`);
      const total = page.total;
      for (;;) {
        byCursor.push(...page.items);
        // The count covers the whole filter whichever page is asked for.
        expect(page.total).toBe(total);
        if (page.items.length < size) break;
        page = await list(client, `${base}&page_size=${size}&${cursorOf(page.items.at(-1)!)}`);
      }
      expect(byCursor.map((i) => i.id)).toEqual(byOffset.map((i) => i.id));
      return { rows: byCursor, total };
    }

    it('walks every row once, newest first, by cursor as by offset', async () => {
      const { rows, total } = await walk(admin, '/api/log/?type=0', 4);
      expect(total).toBe(45);
      expect(rows).toHaveLength(45);
      expect(new Set(rows.map((r) => r.id)).size).toBe(45);
      const keys = rows.map((r) => [r.created_at, r.id]);
      const sorted = [...keys].sort((a, b) => b[0] - a[0] || b[1] - a[1]);
      expect(keys).toEqual(sorted);
      // Within one second the higher id comes first: rows were inserted newest first, so req-42 got the
      // highest id of the newest second and req-2 the lowest of the oldest.
      expect(rows.slice(0, 3).map((r) => r.request_id)).toEqual(['req-42', 'req-43', 'req-44']);
      expect(rows.at(-1)?.request_id).toBe('req-2');
    });

    it('keeps the filters under a cursor, for admins and for a user', async () => {
      const errors = await walk(admin, '/api/log/?type=5&model_name=gpt-4o', 2);
      expect(errors.rows.map((r) => r.request_id)).toEqual([
        'req-39',
        'req-33',
        'req-27',
        'req-21',
        'req-15',
        'req-9',
        'req-3',
      ]);
      const bobs = await walk(admin, '/api/log/?username=bob', 3);
      expect(bobs.rows.map((r) => r.request_id)).toEqual([
        'req-44',
        'req-39',
        'req-34',
        'req-29',
        'req-24',
        'req-19',
        'req-14',
        'req-9',
        'req-4',
      ]);
      const own = await walk(alice, '/api/log/self/?model_name=gpt-4o-mini', 5);
      expect(own.total).toBe(18);
      expect(own.rows.every((r) => r.username === 'alice' && r.model_name === 'gpt-4o-mini')).toBe(true);
    });

    it('counts p in pages after the cursor', async () => {
      const all = (await list(admin, '/api/log/?page_size=45')).items;
      const after = (n: number) => all.slice(n);
      const cursor = cursorOf(all[9]);
      const third = await list(admin, `/api/log/?page_size=5&p=3&${cursor}`);
      expect(third.page).toBe(3);
      expect(third.items.map((i) => i.id)).toEqual(
        after(10 + 10)
          .slice(0, 5)
          .map((i) => i.id),
      );
      // Past the end: an empty page, not an error.
      expect((await list(admin, `/api/log/?page_size=5&p=9&${cursor}`)).items).toEqual([]);
      expect((await list(admin, `/api/log/?${cursorOf(all[44])}`)).items).toEqual([]);
    });

    it('gives new rows no effect on pages read by cursor', async () => {
      const first = await list(admin, '/api/log/?page_size=5');
      await server.ctx.logDb.db
        .insertInto('logs')
        .values({
          user_id: bob.userId,
          username: 'bob',
          created_at: now,
          type: 2,
          content: '',
          token_name: 'default',
          token_id: 0,
          model_name: 'gpt-4o',
          quota: 1,
          prompt_tokens: 1,
          completion_tokens: 1,
          use_time: 1,
          first_time: 1,
          is_stream: 0,
          channel_id: 0,
          group: 'default',
          ip: '',
          request_id: 'late',
          other: '',
        })
        .execute();
      const byOffset = await list(admin, '/api/log/?page_size=5&p=2');
      const byCursor = await list(admin, `/api/log/?page_size=5&${cursorOf(first.items.at(-1)!)}`);
      // The offset page repeats the row the new one pushed down; the cursor page continues where the reader was.
      expect(byOffset.items[0].id).toBe(first.items.at(-1)!.id);
      expect(byCursor.items[0].id).not.toBe(first.items.at(-1)!.id);
      expect(byCursor.total).toBe(46);
    });

    it("never shows another user's rows through a cursor", async () => {
      const mine = await list(alice, '/api/log/self/?page_size=100');
      const bobsNewest = (await list(bob, '/api/log/self/?page_size=1')).items[0];
      const page = await list(alice, `/api/log/self/?page_size=100&${cursorOf(bobsNewest)}&username=bob`);
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.items.every((i) => i.username === 'alice')).toBe(true);
      expect(page.total).toBe(mine.total);
    });

    it('refuses a half or malformed cursor with a 400', async () => {
      for (const q of [
        'before_time=100',
        'before_id=5',
        'before_time=abc&before_id=5',
        'before_time=100&before_id=0',
        'before_time=-1&before_id=5',
        'before_time=100&before_id=1.5',
        'before_time=1e30&before_id=5',
      ]) {
        const r = await admin.get(`/api/log/?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.success).toBe(false);
        expect((await alice.get(`/api/log/self/?${q}`)).status, q).toBe(400);
      }
      const r = await admin.get('/api/log/?before_time=100');
      expect(r.message).toContain('before_time and before_id go together');
      // Empty values mean "not set", as for every other filter.
      expect((await list(admin, '/api/log/?before_time=&before_id=')).total).toBe(46);
    });
  });
}
