import type { Selectable, Updateable } from 'kysely';
import type { MidjourneysTable } from '../../../db/schema.ts';
import { taskStore } from '../task-store.ts';
import { ACCEPTED_CODES, TERMINAL_STATUSES } from './protocol.ts';

export type TaskRow = Selectable<MidjourneysTable>;
export type TaskChanges = Updateable<MidjourneysTable>;

/** Midjourney's tasks: rows of `midjourneys` by `mj_id`; only those the proxy took are polled. */
export const {
  insertTask,
  ownTask,
  ownTasks,
  tasksByUpstreamId: tasksByMjId,
  tasksByIds,
  unfinishedTasks,
  updateUnfinished,
} = taskStore({
  table: 'midjourneys',
  upstreamId: 'mj_id',
  terminal: TERMINAL_STATUSES,
  acceptedCodes: [...ACCEPTED_CODES],
  numbers: ['code'],
});
