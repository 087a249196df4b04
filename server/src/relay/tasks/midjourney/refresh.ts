import { guardedFetch, userUrlPolicy } from '../../../infra/ssrf.ts';
import type { RelayState } from '../../relay-state.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { TaskRefresh } from '../refresh.ts';
import { modelOf } from './actions.ts';
import { isTerminal, MjStatus, type MjTask } from './protocol.ts';
import { type TaskChanges, type TaskRow, unfinishedTasks, updateUnfinished } from './store.ts';
import { callChannel, POLL_TIMEOUT_MS } from './upstream.ts';
import { taskView } from './view.ts';

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);

/**
 * What an upstream task report changes in the gateway's row, or null when nothing. CANCEL (Plus) is recorded
 * as a failure; a task unfinished TASK_TIMEOUT_MINUTES after its submit fails whatever the report says.
 */
export function changesOf(
  state: RelayState,
  row: TaskRow,
  t: Partial<MjTask> | null,
  now: number,
): TaskChanges | null {
  let status = t ? str(t.status) || row.status : row.status;
  let failReason = t ? str(t.failReason) : (row.fail_reason ?? '');
  if (status === MjStatus.Cancel) {
    status = MjStatus.Failure;
    failReason ||= 'the task was cancelled upstream';
  }
  const timeoutMin = state.ctx.config.taskTimeoutMin;
  if (!isTerminal(status) && timeoutMin > 0 && now - row.submit_time > timeoutMin * 60_000) {
    status = MjStatus.Failure;
    failReason = `upstream task timed out (unfinished after ${timeoutMin} minutes)`;
  }
  if (status === MjStatus.Failure) failReason ||= 'the upstream reported a failure';
  const c: TaskChanges = {};
  const set = <K extends keyof TaskChanges>(k: K, v: TaskChanges[K], old: unknown) => {
    if (v !== old) c[k] = v;
  };
  set('status', status, row.status);
  set('fail_reason', failReason, row.fail_reason ?? '');
  set('progress', isTerminal(status) ? '100%' : str(t?.progress) || row.progress, row.progress);
  if (t) {
    if (str(t.promptEn)) set('prompt_en', str(t.promptEn), row.prompt_en ?? '');
    if (str(t.imageUrl)) set('image_url', str(t.imageUrl), row.image_url ?? '');
    if (str(t.videoUrl)) set('video_url', str(t.videoUrl), row.video_url ?? '');
    if (int(t.startTime)) set('start_time', int(t.startTime), row.start_time);
    if (int(t.finishTime)) set('finish_time', int(t.finishTime), row.finish_time);
    if (Array.isArray(t.buttons)) set('buttons', JSON.stringify(t.buttons), row.buttons || '[]');
    if (t.properties && typeof t.properties === 'object')
      set('properties', JSON.stringify(t.properties), row.properties || '{}');
  }
  if (isTerminal(status) && !row.finish_time && !c.finish_time) c.finish_time = now;
  if (Object.keys(c).length === 0) return null;
  c.updated_at = now;
  return c;
}

/** One list-by-condition call for these ids: the reports by task id, or null when the proxy answered badly. */
async function fetchReports(
  state: RelayState,
  ch: ChannelEntry,
  ids: string[],
): Promise<Map<string, Partial<MjTask>> | null> {
  try {
    const res = await callChannel(state, ch, {
      method: 'POST',
      path: '/mj/task/list-by-condition',
      body: { ids },
      timeoutMs: POLL_TIMEOUT_MS,
    });
    if (res.status !== 200 || !Array.isArray(res.json)) {
      state.ctx.log.warn({ channel: ch.id, status: res.status }, 'midjourney task poll answered badly');
      return null;
    }
    const byId = new Map<string, Partial<MjTask>>();
    for (const r of res.json as Partial<MjTask>[])
      if (r && typeof r === 'object' && typeof r.id === 'string') byId.set(r.id, r);
    return byId;
  } catch (err) {
    state.ctx.log.warn({ channel: ch.id, err: (err as Error).message }, 'midjourney task poll failed');
    return null;
  }
}

/** Midjourney's tasks in the shared task refresh: rows of `midjourneys`, asked about with list-by-condition. */
export const midjourneyTasks = new TaskRefresh<TaskRow, TaskChanges, Partial<MjTask>>({
  name: 'midjourney',
  failed: MjStatus.Failure,
  isTerminal,
  upstreamId: (row) => row.mj_id,
  model: (row) => modelOf(row.action),
  fetchReports,
  changesOf,
  clock: (ms) => ms,
  unfinished: unfinishedTasks,
  updateUnfinished,
  saved: (state, row, c) => forwardNotify(state, { ...row, ...c } as TaskRow),
});

/**
 * Tells the client's notifyHook about a change, with the task as fetch shows it, when MjNotifyEnabled is on.
 * The hook is the client's URL: it goes through the SSRF guard for user URLs. Fire and forget.
 */
export function forwardNotify(state: RelayState, row: TaskRow): void {
  const { ctx } = state;
  const hook = row.notify_hook ?? '';
  if (!hook || !ctx.options.bool('MjNotifyEnabled')) return;
  guardedFetch(hook, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(taskView(ctx, row)),
    policy: userUrlPolicy(ctx.options),
    timeoutMs: 10_000,
  })
    .then((res) => res.body?.cancel())
    .catch((err) =>
      ctx.log.warn({ task: row.mj_id, err: (err as Error).message }, 'notify hook call failed'),
    );
}
