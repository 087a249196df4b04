import { guardedFetch, userUrlPolicy } from '../../infra/ssrf.ts';
import type { ChannelEntry } from '../cache/channels.ts';
import { withKey } from '../routing.ts';
import type { RelayState } from '../state.ts';
import { finishTaskOnce, refundOf } from '../tasks/refund.ts';
import { SingleFlight } from '../tasks/single-flight.ts';
import { modelOf } from './actions.ts';
import { isTerminal, MjStatus, type MjTask } from './protocol.ts';
import { type TaskChanges, type TaskRow, updateUnfinished } from './store.ts';
import { callChannel, POLL_TIMEOUT_MS } from './upstream.ts';
import { taskView } from './view.ts';

/** A client's fetch refreshes a task from the upstream when the last look is older than this. */
export const STALE_MS = 3000;
/** Ids per list-by-condition call. */
const BATCH = 100;

const flights = new WeakMap<RelayState, SingleFlight<number>>();
/** When each unfinished task was last asked about, per process (a fetch soon after a loop round asks nothing). */
const lastLook = new WeakMap<RelayState, Map<number, number>>();

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

/**
 * Saves changes to an unfinished task. Reaching SUCCESS or FAILURE is a claim only one caller wins
 * (finishTaskOnce); a failure refunds the charge in the same transaction. The winner forwards the change to
 * the client's notify hook. Returns whether this call changed the row.
 */
export async function applyChanges(state: RelayState, row: TaskRow, c: TaskChanges): Promise<boolean> {
  const status = c.status ?? row.status;
  let applied: boolean;
  if (isTerminal(status)) {
    const refund =
      status === MjStatus.Failure && row.quota > 0
        ? refundOf(row, modelOf(row.action), row.mj_id, String(c.fail_reason ?? row.fail_reason))
        : null;
    applied = await finishTaskOnce(state, (trx) => updateUnfinished(trx, row.id, c), refund);
    lastLook.get(state)?.delete(row.id);
  } else {
    applied = await updateUnfinished(state.ctx.db.db, row.id, c);
  }
  if (applied) forwardNotify(state, { ...row, ...c } as TaskRow);
  return applied;
}

/** Fails every task given, with the reason (their channel is gone, they never got an upstream id). */
export async function failTasks(state: RelayState, rows: TaskRow[], reason: string): Promise<void> {
  const now = Date.now();
  for (const row of rows) {
    await applyChanges(state, row, {
      status: MjStatus.Failure,
      fail_reason: reason,
      progress: '100%',
      finish_time: now,
      updated_at: now,
    });
  }
}

/** Asks one channel about its tasks (list-by-condition, in batches) and saves what changed. */
export async function refreshOnChannel(
  state: RelayState,
  channel: ChannelEntry,
  rows: TaskRow[],
): Promise<void> {
  const ch = withKey(channel) ?? channel;
  const looks = lookMap(state);
  for (let i = 0; i < rows.length; i += BATCH) {
    const part = rows.slice(i, i + BATCH);
    let reports: Partial<MjTask>[] | null = null;
    try {
      const res = await callChannel(state, ch, {
        method: 'POST',
        path: '/mj/task/list-by-condition',
        body: { ids: part.map((r) => r.mj_id) },
        timeoutMs: POLL_TIMEOUT_MS,
      });
      if (res.status === 200 && Array.isArray(res.json)) reports = res.json as Partial<MjTask>[];
      else state.ctx.log.warn({ channel: ch.id, status: res.status }, 'midjourney task poll answered badly');
    } catch (err) {
      state.ctx.log.warn({ channel: ch.id, err: (err as Error).message }, 'midjourney task poll failed');
    }
    const now = Date.now();
    const byId = new Map<string, Partial<MjTask>>();
    for (const r of reports ?? [])
      if (r && typeof r === 'object' && typeof r.id === 'string') byId.set(r.id, r);
    for (const row of part) {
      // A task the upstream did not report (or could not be asked about) can still time out.
      const c = changesOf(state, row, byId.get(row.mj_id) ?? null, now);
      if (c) await applyChanges(state, row, c);
      // Only once saved: a read in between must not take the record for fresh.
      if (!c || !isTerminal(c.status ?? row.status)) looks.set(row.id, now);
    }
  }
}

function lookMap(state: RelayState): Map<number, number> {
  let m = lastLook.get(state);
  if (!m) {
    m = new Map();
    lastLook.set(state, m);
  }
  return m;
}

/**
 * Brings unfinished tasks up to date from their channels, grouped by channel, one upstream call per channel
 * and batch. A client's read (`force` false) asks only about tasks not looked at for STALE_MS, and concurrent
 * reads of a task in this process share one call. The task loop and notify callbacks (`force`) always ask:
 * they may race each other and the reads, which the final-state claim makes harmless.
 */
export async function refreshTasks(state: RelayState, rows: TaskRow[], force = false): Promise<void> {
  const now = Date.now();
  const looks = lookMap(state);
  const due = rows.filter(
    (r) => r.mj_id && !isTerminal(r.status) && (force || now - (looks.get(r.id) ?? 0) >= STALE_MS),
  );
  if (!due.length) return;
  if (force) return refreshGrouped(state, due);
  let flight = flights.get(state);
  if (!flight) {
    flight = new SingleFlight<number>();
    flights.set(state, flight);
  }
  const byRowId = new Map(due.map((r) => [r.id, r]));
  await flight.run([...byRowId.keys()], (fresh) =>
    refreshGrouped(
      state,
      fresh.map((id) => byRowId.get(id)!),
    ),
  );
}

async function refreshGrouped(state: RelayState, rows: TaskRow[]): Promise<void> {
  const byChannel = new Map<number, TaskRow[]>();
  for (const r of rows) byChannel.set(r.channel_id, [...(byChannel.get(r.channel_id) ?? []), r]);
  for (const [channelId, list] of byChannel) {
    const ch = state.channels.get(channelId);
    if (ch) await refreshOnChannel(state, ch, list);
    else await failTasks(state, list, `channel #${channelId} no longer exists`);
  }
}

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
