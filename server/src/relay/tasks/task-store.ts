import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';

/** The tables task platforms keep their tasks in: Midjourney's own, and `tasks` shared by platform. */
export type TaskTable = 'midjourneys' | 'tasks';

type Row<T extends TaskTable> = Selectable<Database[T]>;
type StringColumn<T extends TaskTable> = {
  [K in keyof Row<T>]: Row<T>[K] extends string ? K : never;
}[keyof Row<T>] &
  string;

/** Where one platform's tasks are and what their columns hold: the only facts a platform gives its store. */
export interface TaskTableFacts<T extends TaskTable> {
  table: T;
  /** The column of the upstream's task id. */
  upstreamId: StringColumn<T>;
  /** In a table several platforms share, the value of `platform` that marks this one's rows. */
  platform?: string;
  /** Statuses a task never leaves. */
  terminal: readonly string[];
  /** Midjourney: the submit answer codes of tasks the upstream took (only those are worth polling). */
  acceptedCodes?: readonly number[];
  /** Numeric columns besides the ones every task table has (SHARED_NUMBERS). */
  numbers?: readonly (keyof Row<T> & string)[];
  /** Columns read as '' when null. */
  texts?: readonly (keyof Row<T> & string)[];
}

/**
 * The shared queries see any task table through this shape: the column names come from the facts, which the
 * facts' own types check against the real table.
 */
type AnyRow = Record<string, unknown>;
type AnyDb = Kysely<Record<string, AnyRow>>;

const num = (v: unknown) => Number(v ?? 0);

/** Numeric columns of every task table: bigint columns come back as strings on PostgreSQL and MySQL. */
const SHARED_NUMBERS = [
  'id',
  'user_id',
  'channel_id',
  'token_id',
  'quota',
  'submit_time',
  'start_time',
  'finish_time',
  'updated_at',
] as const satisfies readonly (keyof Row<'midjourneys'> & keyof Row<'tasks'>)[];

/** One platform's task store: the same reads and writes over its own table and columns. */
export function taskStore<T extends TaskTable>(facts: TaskTableFacts<T>) {
  type TaskRow = Row<T>;
  // Widened to plain names for the queries on AnyDb.
  const table: string = facts.table;
  const upstreamId: string = facts.upstreamId;
  const terminal = [...facts.terminal];
  const numbers: readonly string[] = [...SHARED_NUMBERS, ...(facts.numbers ?? [])];
  const any = (db: Kysely<Database>) => db as unknown as AnyDb;

  function normal(r: AnyRow): TaskRow {
    const out: AnyRow = { ...r };
    for (const k of numbers) out[k] = num(r[k]);
    for (const k of facts.texts ?? []) out[k] = r[k] ?? '';
    return out as TaskRow;
  }

  const select = (ctx: AppContext) => {
    const q = any(ctx.db.db).selectFrom(table).selectAll();
    return facts.platform === undefined ? q : q.where('platform', '=', facts.platform);
  };

  return {
    async insertTask(ctx: AppContext, row: Insertable<Database[T]>): Promise<void> {
      await any(ctx.db.db)
        .insertInto(table)
        .values(row as AnyRow)
        .execute();
    },

    /** The caller's task with this upstream id (the newest when an upstream repeated it). */
    async ownTask(ctx: AppContext, userId: number, id: string): Promise<TaskRow | undefined> {
      if (!id) return undefined;
      const r = await select(ctx)
        .where('user_id', '=', userId)
        .where(upstreamId, '=', id)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return r && normal(r);
    },

    /** The caller's tasks among these upstream ids, one per id, in the order asked. */
    async ownTasks(ctx: AppContext, userId: number, upstreamIds: string[]): Promise<TaskRow[]> {
      const ids = [...new Set(upstreamIds.filter(Boolean))];
      if (!ids.length) return [];
      const rows = await select(ctx)
        .where('user_id', '=', userId)
        .where(upstreamId, 'in', ids)
        .orderBy('id', 'desc')
        .execute();
      const byId = new Map<string, TaskRow>();
      for (const r of rows) {
        const key = r[upstreamId] as string;
        if (!byId.has(key)) byId.set(key, normal(r));
      }
      return ids.flatMap((id) => byId.get(id) ?? []);
    },

    /** Every task carrying this upstream id, whoever owns it, newest first (at most 20). */
    async tasksByUpstreamId(ctx: AppContext, id: string): Promise<TaskRow[]> {
      if (!id) return [];
      const rows = await select(ctx).where(upstreamId, '=', id).orderBy('id', 'desc').limit(20).execute();
      return rows.map(normal);
    },

    async tasksByIds(ctx: AppContext, ids: number[]): Promise<TaskRow[]> {
      if (!ids.length) return [];
      const rows = await select(ctx).where('id', 'in', ids).execute();
      return rows.map(normal);
    },

    /** Tasks that have not reached a final state, oldest first. */
    async unfinishedTasks(ctx: AppContext, limit: number): Promise<TaskRow[]> {
      let q = select(ctx).where('status', 'not in', terminal);
      if (facts.acceptedCodes) q = q.where('code', 'in', [...facts.acceptedCodes]);
      const rows = await q.orderBy('id', 'asc').limit(limit).execute();
      return rows.map(normal);
    },

    /**
     * Saves changes to a task that is not final yet; false when it already is (another caller finished it
     * first). The condition on the status is what makes finishing, and so refunding, happen once.
     */
    async updateUnfinished(
      db: Kysely<Database>,
      id: number,
      changes: Updateable<Database[T]>,
    ): Promise<boolean> {
      const res = await any(db)
        .updateTable(table)
        .set(changes as AnyRow)
        .where('id', '=', id)
        .where('status', 'not in', terminal)
        .executeTakeFirst();
      return Number(res.numUpdatedRows) > 0;
    },
  };
}
