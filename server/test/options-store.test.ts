import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Db, openDatabase } from '../src/db/index.ts';
import { createBus } from '../src/infra/bus.ts';
import { createOptionStore } from '../src/modules/options/store.ts';
import { DATABASES } from './support/databases.ts';

/**
 * Counts the store's reads and, while `holding`, keeps a read's answer until released: a reload whose read
 * happened before a write but whose answer arrives after it, which a pool of several connections does under
 * load. (Held outside the query, so SQLite's single connection stays free for the write.)
 */
class HeldReads {
  holding = false;
  selects = 0;
  readonly held: Array<() => void> = [];
  private waiter?: () => void;

  wrap(db: Kysely<Database>): Kysely<Database> {
    const builder = (b: object): object =>
      new Proxy(b, {
        get: (t, p) => {
          const v = Reflect.get(t, p);
          if (typeof v !== 'function') return v;
          if (p === 'execute')
            return async (...args: unknown[]) => {
              const holding = this.holding;
              this.selects += 1;
              const rows = await v.apply(t, args);
              if (holding)
                await new Promise<void>((release) => {
                  this.held.push(release);
                  this.waiter?.();
                });
              return rows;
            };
          return (...args: unknown[]) => {
            const out = v.apply(t, args);
            return out && typeof out === 'object' && 'execute' in out ? builder(out) : out;
          };
        },
      });
    return new Proxy(db, {
      get: (t, p) => {
        const v = Reflect.get(t, p);
        if (p === 'selectFrom') return (...args: unknown[]) => builder(v.apply(t, args));
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
  }

  /** Resolves once a held read has read the table. */
  read() {
    return this.held.length
      ? Promise.resolve()
      : new Promise<void>((r) => {
          this.waiter = r;
        });
  }
}

for (const engine of DATABASES) {
  describe.skipIf(!engine.available)(`option store on ${engine.name}`, () => {
    let made: Awaited<ReturnType<typeof engine.create>>;
    let handle: Db;
    beforeAll(async () => {
      made = await engine.create({ migrated: true });
      handle = await openDatabase(made.dsn, made.sqlitePath);
    });
    afterAll(async () => {
      await handle?.close();
      await made?.drop();
    });

    it('keeps a change in force when a reload that read the table before it answers after it', async () => {
      const gate = new HeldReads();
      const store = await createOptionStore({ ...handle, db: gate.wrap(handle.db) }, createBus());
      await store.set('MjNotifyEnabled', 'false');

      // Another instance's change arrives: the reload reads MjNotifyEnabled=false and its answer is held.
      gate.holding = true;
      const reload = store.reload();
      await gate.read();
      gate.holding = false;

      // A console change on this instance, in force when it returns, and without reloading itself.
      const selects = gate.selects;
      await store.set('MjNotifyEnabled', 'true');
      expect(gate.selects).toBe(selects);
      expect(store.bool('MjNotifyEnabled')).toBe(true);

      // The stale reload answers last: the change stays in force.
      for (const release of gate.held) release();
      await reload;
      expect(store.bool('MjNotifyEnabled')).toBe(true);
      await store.reload();
      expect(store.bool('MjNotifyEnabled')).toBe(true);
    });

    it('follows a change another instance wrote once told of it on the bus', async () => {
      const bus = createBus();
      const store = await createOptionStore(handle, bus);
      const other = await createOptionStore(handle, createBus());
      await other.set('MjModeClearEnabled', 'true');
      expect(store.bool('MjModeClearEnabled')).toBe(false);
      await bus.publish('options', 'MjModeClearEnabled');
      expect(store.bool('MjModeClearEnabled')).toBe(true);
    });
  });
}
