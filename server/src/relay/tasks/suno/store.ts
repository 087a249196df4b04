import type { Selectable, Updateable } from 'kysely';
import type { TasksTable } from '../../../db/schema.ts';
import { taskStore } from '../task-store.ts';
import { TERMINAL_STATUSES } from './protocol.ts';

/** The `tasks` table's platform value of Suno tasks. */
export const PLATFORM = 'suno';

export type TaskRow = Selectable<TasksTable>;
export type TaskChanges = Updateable<TasksTable>;

/** Suno's tasks: rows of `tasks` of platform suno, by `task_id`. */
export const { insertTask, ownTask, ownTasks, tasksByIds, unfinishedTasks, updateUnfinished } = taskStore({
  table: 'tasks',
  upstreamId: 'task_id',
  platform: PLATFORM,
  terminal: TERMINAL_STATUSES,
  numbers: ['created_at'],
  texts: ['fail_reason', 'properties', 'data'],
});
