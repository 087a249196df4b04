import type { RelayState } from '../../relay-state.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { TaskRefresh } from '../refresh.ts';
import { callTaskChannel } from '../upstream.ts';
import { slimData } from './data.ts';
import {
  isKnownStatus,
  isTerminal,
  modelOf,
  STATUS_PROGRESS,
  SUCCESS,
  SunoStatus,
  type UpstreamTask,
} from './protocol.ts';
import { type TaskChanges, type TaskRow, unfinishedTasks, updateUnfinished } from './store.ts';

const POLL_TIMEOUT_MS = 15_000;

/** How the Suno API proxy takes its secret. */
export const sunoAuth = (ch: ChannelEntry) => ({ authorization: `Bearer ${ch.key}` });

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');
/** Unix seconds; a report in milliseconds is brought down to seconds. */
const seconds = (v: unknown) => {
  const n = typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0;
  return n > 1e12 ? Math.trunc(n / 1000) : n;
};
const percent = (v: unknown) => {
  const m = /^(\d{1,3})(?:\.\d+)?%$/.exec(str(v));
  return m ? Math.min(100, Number(m[1])) : null;
};

/**
 * What an upstream report changes in the gateway's row, or null when nothing. A status the protocol does not
 * know is ignored; a task unfinished TASK_TIMEOUT_MINUTES after its submit fails whatever the report says.
 * Progress never goes back.
 */
export function changesOf(
  state: RelayState,
  row: TaskRow,
  t: UpstreamTask | null,
  nowSec: number,
): TaskChanges | null {
  let status = row.status;
  let failReason = row.fail_reason ?? '';
  const reported = t ? str(t.status).toUpperCase() : '';
  if (reported && isKnownStatus(reported)) status = reported;
  if (t && str(t.fail_reason)) failReason = str(t.fail_reason);
  const timeoutMin = state.ctx.config.taskTimeoutMin;
  if (!isTerminal(status) && timeoutMin > 0 && nowSec - row.submit_time > timeoutMin * 60) {
    status = SunoStatus.Failure;
    failReason = `upstream task timed out (unfinished after ${timeoutMin} minutes)`;
  }
  if (status === SunoStatus.Failure) failReason ||= 'the upstream reported a failure';
  const before = percent(row.progress) ?? 0;
  const after = isTerminal(status)
    ? 100
    : Math.max(before, percent(t?.progress) ?? STATUS_PROGRESS[status] ?? 0);

  const c: TaskChanges = {};
  const set = <K extends keyof TaskChanges>(k: K, v: TaskChanges[K], old: unknown) => {
    if (v !== old) c[k] = v;
  };
  set('status', status, row.status);
  set('fail_reason', failReason, row.fail_reason ?? '');
  set('progress', `${after}%`, row.progress);
  if (t) {
    if (seconds(t.start_time)) set('start_time', seconds(t.start_time), row.start_time);
    if (seconds(t.finish_time)) set('finish_time', seconds(t.finish_time), row.finish_time);
    if (t.data !== undefined && t.data !== null) {
      const data = slimData(t.data);
      if (data !== null) set('data', data, row.data ?? '');
    }
  }
  if (status === SunoStatus.InProgress && !row.start_time && !c.start_time) c.start_time = nowSec;
  if (isTerminal(status) && !row.finish_time && !c.finish_time) c.finish_time = nowSec;
  if (Object.keys(c).length === 0) return null;
  c.updated_at = nowSec;
  return c;
}

/** One `POST /suno/fetch` for these ids: the reports by task id, or null when the upstream answered badly. */
async function fetchReports(
  state: RelayState,
  ch: ChannelEntry,
  ids: string[],
): Promise<Map<string, UpstreamTask> | null> {
  try {
    const res = await callTaskChannel(state, ch, {
      method: 'POST',
      path: '/suno/fetch',
      body: { ids },
      timeoutMs: POLL_TIMEOUT_MS,
      auth: sunoAuth(ch),
    });
    const answer = res.json as { code?: unknown; data?: unknown } | undefined;
    if (res.status !== 200 || answer?.code !== SUCCESS || !Array.isArray(answer.data)) {
      state.ctx.log.warn({ channel: ch.id, status: res.status }, 'suno task poll answered badly');
      return null;
    }
    const byId = new Map<string, UpstreamTask>();
    for (const t of answer.data as UpstreamTask[])
      if (t && typeof t === 'object' && typeof t.task_id === 'string') byId.set(t.task_id, t);
    return byId;
  } catch (err) {
    state.ctx.log.warn({ channel: ch.id, err: (err as Error).message }, 'suno task poll failed');
    return null;
  }
}

/** Suno's tasks in the shared task refresh: rows of `tasks` of platform suno, asked about with `POST /suno/fetch`. */
export const sunoTasks = new TaskRefresh<TaskRow, TaskChanges, UpstreamTask>({
  name: 'suno',
  failed: SunoStatus.Failure,
  isTerminal,
  upstreamId: (row) => row.task_id,
  model: (row) => modelOf(row.action),
  fetchReports,
  clock: (ms) => Math.floor(ms / 1000),
  changesOf,
  unfinished: unfinishedTasks,
  updateUnfinished,
});
