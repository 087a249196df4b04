import type { SunoTaskView } from './protocol.ts';
import type { TaskRow } from './store.ts';

/** The stored upstream data as JSON again (null when there is none yet). */
export function dataOf(row: Pick<TaskRow, 'data'>): unknown {
  if (!row.data) return null;
  try {
    return JSON.parse(row.data);
  } catch {
    return null;
  }
}

/** A task row as fetch answers it. */
export function taskView(row: TaskRow): SunoTaskView {
  return {
    task_id: row.task_id,
    action: row.action,
    status: row.status,
    fail_reason: row.fail_reason ?? '',
    submit_time: row.submit_time,
    start_time: row.start_time,
    finish_time: row.finish_time,
    progress: row.progress,
    data: dataOf(row),
  };
}
