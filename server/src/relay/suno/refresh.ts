import type { ChannelEntry } from '../cache/channels.ts';
import { withKey } from '../routing.ts';
import type { RelayState } from '../state.ts';
import { TaskFreshness } from '../tasks/freshness.ts';
import { finishTaskOnce, refundOf } from '../tasks/refund.ts';
import { callTaskChannel } from '../tasks/upstream.ts';
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
import { type TaskChanges, type TaskRow, updateUnfinished } from './store.ts';

/** A client's fetch refreshes a task from the upstream when the last look is older than this. */
export const STALE_MS = 3000;
/** Ids per `POST /suno/fetch` call. */
const BATCH = 100;
const POLL_TIMEOUT_MS = 15_000;

const freshness = new WeakMap<RelayState, TaskFreshness>();

function freshnessOf(state: RelayState): TaskFreshness {
  let f = freshness.get(state);
  if (!f) {
    f = new TaskFreshness(STALE_MS);
    freshness.set(state, f);
  }
  return f;
}

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

/**
 * Saves changes to an unfinished task. Reaching SUCCESS or FAILURE is a claim only one caller wins
 * (finishTaskOnce); a failure refunds the charge in the same transaction. Returns whether this call changed
 * the row.
 */
export async function applyChanges(state: RelayState, row: TaskRow, c: TaskChanges): Promise<boolean> {
  const status = c.status ?? row.status;
  if (!isTerminal(status)) return updateUnfinished(state.ctx.db.db, row.id, c);
  const refund =
    status === SunoStatus.Failure && row.quota > 0
      ? refundOf(row, modelOf(row.action), row.task_id, String(c.fail_reason ?? row.fail_reason))
      : null;
  const won = await finishTaskOnce(state, (trx) => updateUnfinished(trx, row.id, c), refund);
  freshnessOf(state).forget(row.id);
  return won;
}

/** Fails every task given, with the reason (their channel is gone, they never got an upstream id). */
export async function failTasks(state: RelayState, rows: TaskRow[], reason: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  for (const row of rows)
    await applyChanges(state, row, {
      status: SunoStatus.Failure,
      fail_reason: reason,
      progress: '100%',
      finish_time: now,
      updated_at: now,
    });
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

/** Asks one channel about its tasks (`POST /suno/fetch` with the ids, in batches) and saves what changed. */
export async function refreshOnChannel(
  state: RelayState,
  channel: ChannelEntry,
  rows: TaskRow[],
): Promise<void> {
  const ch = withKey(channel) ?? channel;
  const looks = freshnessOf(state);
  for (let i = 0; i < rows.length; i += BATCH) {
    const part = rows.slice(i, i + BATCH);
    const reports = await fetchReports(
      state,
      ch,
      part.map((r) => r.task_id),
    );
    const now = Date.now();
    for (const row of part) {
      // A task the upstream did not report (or could not be asked about) can still time out.
      const c = changesOf(state, row, reports?.get(row.task_id) ?? null, Math.floor(now / 1000));
      if (c) await applyChanges(state, row, c);
      // Only once saved: a read in between must not take the record for fresh.
      if (!c || !isTerminal(c.status ?? row.status)) looks.seen(row.id, now);
    }
  }
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
 * Brings unfinished tasks up to date from their channels, one upstream call per channel and batch. A client's
 * read (`force` false) asks only about tasks not looked at for STALE_MS, and concurrent reads of a task in this
 * process share one call. The task loop (`force`) always asks: it may race the reads, which the final-state
 * claim makes harmless.
 */
export async function refreshTasks(state: RelayState, rows: TaskRow[], force = false): Promise<void> {
  const now = Date.now();
  const looks = freshnessOf(state);
  const due = rows.filter((r) => r.task_id && !isTerminal(r.status) && (force || looks.isStale(r.id, now)));
  if (!due.length) return;
  if (force) return refreshGrouped(state, due);
  const byRowId = new Map(due.map((r) => [r.id, r]));
  await looks.join([...byRowId.keys()], (fresh) =>
    refreshGrouped(
      state,
      fresh.map((id) => byRowId.get(id)!),
    ),
  );
}
