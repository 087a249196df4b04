import type { Kysely } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/schema.ts';
import type { RelayState } from '../relay-state.ts';
import { withKey } from '../route/failover.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';
import { TaskFreshness } from './freshness.ts';
import type { TaskPlatform } from './loop.ts';
import { type ChargedRow, finishTaskOnce, refundOf } from './refund.ts';

/** A client's fetch refreshes a task from the upstream when the last look is older than this. */
export const STALE_MS = 3000;
/** Ids per upstream call. */
const BATCH = 100;
/** Unfinished tasks read per loop round; the rest wait for the next one. */
const ROUND_LIMIT = 1000;

export interface TaskRowBase extends ChargedRow {
  status: string;
  action: string;
  fail_reason: string | null;
}

export interface TaskChangesBase {
  status?: string;
  fail_reason?: string | null;
  progress?: string;
  finish_time?: number;
  updated_at?: number;
}

/** What one task platform (Midjourney, Suno) brings to the shared refresh: only its own facts. */
export interface TaskFacts<Row extends TaskRowBase, Changes extends TaskChangesBase, Report> {
  name: string;
  /** The status of a task that failed (and is refunded when it was charged). */
  failed: string;
  isTerminal(status: string): boolean;
  /** The upstream's id of a row's task; empty when the upstream gave none. */
  upstreamId(row: Row): string;
  /** The model a row was charged as (its refund's). */
  model(row: Row): string;
  /** One upstream call about these ids on one channel: the reports by id, or null when it failed (logged). */
  fetchReports(state: RelayState, ch: ChannelEntry, ids: string[]): Promise<Map<string, Report> | null>;
  /** A time in the unit the platform's table keeps (milliseconds or seconds), from milliseconds. */
  clock(ms: number): number;
  /** What a report (or none: the task may still time out) changes in a row at `now`, or null when nothing. */
  changesOf(state: RelayState, row: Row, report: Report | null, now: number): Changes | null;
  unfinished(ctx: AppContext, limit: number): Promise<Row[]>;
  /** Saves changes to a task not final yet; false when it already is. */
  updateUnfinished(db: Kysely<Database>, id: number, changes: Changes): Promise<boolean>;
  /** Told of each change this call saved (Midjourney forwards it to the client's notify hook). */
  saved?(state: RelayState, row: Row, changes: Changes): void;
}

/**
 * Brings one platform's tasks up to date from their channels: the task loop's rounds, a client's reads and the
 * saving of a change, with a final state (and a failure's refund) reached exactly once.
 */
export class TaskRefresh<Row extends TaskRowBase, Changes extends TaskChangesBase, Report> {
  private readonly freshness = new WeakMap<RelayState, TaskFreshness>();

  constructor(readonly facts: TaskFacts<Row, Changes, Report>) {}

  private freshnessOf(state: RelayState): TaskFreshness {
    let f = this.freshness.get(state);
    if (!f) {
      f = new TaskFreshness(STALE_MS);
      this.freshness.set(state, f);
    }
    return f;
  }

  /**
   * Saves changes to an unfinished task. Reaching a final state is a claim only one caller wins
   * (finishTaskOnce); a failure refunds the charge in the same transaction. Returns whether this call changed
   * the row.
   */
  async apply(state: RelayState, row: Row, c: Changes): Promise<boolean> {
    const { facts } = this;
    const status = c.status ?? row.status;
    let applied: boolean;
    if (facts.isTerminal(status)) {
      const refund =
        status === facts.failed && row.quota > 0
          ? refundOf(row, facts.model(row), facts.upstreamId(row), String(c.fail_reason ?? row.fail_reason))
          : null;
      applied = await finishTaskOnce(state, (trx) => facts.updateUnfinished(trx, row.id, c), refund);
      this.freshnessOf(state).forget(row.id);
    } else {
      applied = await facts.updateUnfinished(state.ctx.db.db, row.id, c);
    }
    if (applied) facts.saved?.(state, row, c);
    return applied;
  }

  /** Fails every task given, with the reason (their channel is gone, they never got an upstream id). */
  async fail(state: RelayState, rows: Row[], reason: string): Promise<void> {
    const now = this.facts.clock(Date.now());
    const status = this.facts.failed;
    for (const row of rows) {
      const changes = { status, fail_reason: reason, progress: '100%', finish_time: now, updated_at: now };
      await this.apply(state, row, changes as Changes);
    }
  }

  /**
   * Brings unfinished tasks up to date from their channels, one upstream call per channel and batch. A client's
   * read (`force` false) asks only about tasks not looked at for STALE_MS, and concurrent reads of a task in this
   * process share one call. The task loop and notify callbacks (`force`) always ask: they may race each other
   * and the reads, which the final-state claim makes harmless.
   */
  async refresh(state: RelayState, rows: Row[], force = false): Promise<void> {
    const { facts } = this;
    const now = Date.now();
    const looks = this.freshnessOf(state);
    const due = rows.filter(
      (r) => facts.upstreamId(r) && !facts.isTerminal(r.status) && (force || looks.isStale(r.id, now)),
    );
    if (!due.length) return;
    if (force) return this.refreshGrouped(state, due);
    const byRowId = new Map(due.map((r) => [r.id, r]));
    await looks.join([...byRowId.keys()], (fresh) =>
      this.refreshGrouped(
        state,
        fresh.map((id) => byRowId.get(id)!),
      ),
    );
  }

  /**
   * One round of the task loop: every unfinished task is asked about through its channel (in batches per
   * channel); tasks without an upstream id, or whose channel is gone, fail and are refunded; tasks past
   * TASK_TIMEOUT_MINUTES fail and are refunded.
   */
  async poll(state: RelayState): Promise<void> {
    const rows = await this.facts.unfinished(state.ctx, ROUND_LIMIT);
    if (!rows.length) return;
    const orphans = rows.filter((r) => !this.facts.upstreamId(r));
    if (orphans.length) await this.fail(state, orphans, 'the upstream returned no task id');
    await this.refresh(
      state,
      rows.filter((r) => this.facts.upstreamId(r)),
      true,
    );
  }

  /** The platform as the task loop runs it. */
  platform(state: RelayState): TaskPlatform {
    return { name: this.facts.name, poll: () => this.poll(state) };
  }

  private async refreshGrouped(state: RelayState, rows: Row[]): Promise<void> {
    const byChannel = new Map<number, Row[]>();
    for (const r of rows) byChannel.set(r.channel_id, [...(byChannel.get(r.channel_id) ?? []), r]);
    for (const [channelId, list] of byChannel) {
      const ch = state.channels.get(channelId);
      if (ch) await this.refreshOnChannel(state, ch, list);
      else await this.fail(state, list, `channel #${channelId} no longer exists`);
    }
  }

  /** Asks one channel about its tasks, in batches, and saves what changed. */
  private async refreshOnChannel(state: RelayState, channel: ChannelEntry, rows: Row[]): Promise<void> {
    const { facts } = this;
    const ch = withKey(channel) ?? channel;
    const looks = this.freshnessOf(state);
    for (let i = 0; i < rows.length; i += BATCH) {
      const part = rows.slice(i, i + BATCH);
      const reports = await facts.fetchReports(state, ch, part.map(facts.upstreamId));
      const now = Date.now();
      for (const row of part) {
        // A task the upstream did not report (or could not be asked about) can still time out.
        const c = facts.changesOf(state, row, reports?.get(facts.upstreamId(row)) ?? null, facts.clock(now));
        if (c) await this.apply(state, row, c);
        // Only once saved: a read in between must not take the record for fresh.
        if (!c || !facts.isTerminal(c.status ?? row.status)) looks.seen(row.id, now);
      }
    }
  }
}
