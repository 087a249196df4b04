import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import { type BatchRows, commitBatch } from './batch-commit.ts';
import { applyWritten, type Spend, spendRows } from './budget/spends.ts';
import type { LogRow } from './log-insert.ts';
import { LogPacker, NO_LOGS, type PackedLogs } from './packed-logs.ts';
import { type ChargeAmounts, PendingCharges } from './pending-charges.ts';
import { SettlesInFlight } from './settles-in-flight.ts';
import { writerThreadFor } from './worker/shared-thread.ts';

/** One settled request, waiting to be written: its amounts and its usage log row. */
export interface Charge extends ChargeAmounts {
  log?: LogRow;
}

/**
 * Writes settled charges in batches: every BATCH_UPDATE_INTERVAL seconds, one transaction moves
 * users.quota/used_quota/request_count, tokens.remain_quota/used_quota and channels.used_quota, and inserts
 * the usage log rows (in the same transaction when the logs share the main database). Only after the commit
 * are the in-memory balances moved from "pending" to "db", so a balance never counts a charge twice.
 */
export class LedgerWriter {
  /** The charges settled since the last flush, summed per account (pending-charges.ts). */
  private charges = new PendingCharges();
  /** Their usage log rows, packed as they come (packed-logs.ts). */
  private readonly logs = new LogPacker();
  private readonly settling = new SettlesInFlight();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout;
  /** Set by the ledger when balances are shared through Redis: told before and after each database write. */
  hooks?: {
    before(accounts: string[]): Promise<void>;
    after(amounts: Map<string, number>, spends: Spend[]): Promise<void>;
  };
  /** Budget spends of the settled charges (ledger/budget/), written in the same transaction as they are. */
  private spends: Spend[] = [];
  /** Incremented when a flush starts and when it ends: a reload that saw it change must read again. */
  epoch = 0;
  busy = false;

  constructor(private readonly ctx: AppContext) {
    const every = Math.max(0.05, ctx.config.batchUpdateIntervalSec) * 1000;
    this.timer = setInterval(() => void this.flush(), every);
    this.timer.unref();
    ctx.metrics?.watchLedgerQueue(() => this.charges.size);
    ctx.onClose(async () => {
      clearInterval(this.timer);
      await this.flush();
    });
  }

  push(charge: Charge): void {
    if (charge.log) this.logs.add(charge.log);
    this.charges.add(charge);
  }

  pushSpend(spend: Spend): void {
    this.spends.push(spend);
  }

  get queued(): number {
    return this.charges.size;
  }

  /**
   * A settle in progress (with Redis it waits for its charge to be decided there): a flush waits for the settles
   * already running, so that what was answered before a flush (or a shutdown) is in it.
   */
  track<T>(settle: Promise<T>): Promise<T> {
    this.settling.track(settle);
    return settle;
  }

  /** Writes everything queued so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    this.chain = this.chain
      .then(() => this.settling.drain())
      .then(() => this.writeBatch())
      .catch((err) => this.ctx.log.error({ err }, 'ledger flush failed; will retry'));
    return this.chain;
  }

  /** Resolves when no flush is running. */
  idle(): Promise<void> {
    return this.chain;
  }

  private async writeBatch(): Promise<void> {
    if (this.charges.size === 0 && this.spends.length === 0) return;
    const batch = this.charges;
    this.charges = new PendingCharges();
    const spends = this.spends;
    this.spends = [];
    const logs = this.logs.take();
    this.epoch++;
    this.busy = true;
    const startedAt = performance.now();
    let ok = false;
    try {
      await this.write(batch, spends, logs);
      ok = true;
    } catch (err) {
      this.charges.putBack(batch);
      this.spends = spends.concat(this.spends);
      this.logs.putBack(logs);
      throw err;
    } finally {
      this.busy = false;
      this.epoch++;
      this.ctx.metrics?.ledgerFlushed(performance.now() - startedAt, ok);
    }
    applyWritten(spends);
    // Keep the console's in-memory user snapshot in step without a database read on the hot path.
    for (const [id, sum] of batch.perUser()) {
      const snap = this.ctx.users.peek(id);
      if (!snap) continue;
      snap.quota -= sum.quota;
      snap.used_quota += sum.quota;
      snap.request_count += sum.requests;
    }
    batch.settleBalances();
  }

  private async write(batch: PendingCharges, spends: Spend[], logs: PackedLogs): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    const { users, tokens, channels } = batch.rows(now);
    // The shared store's names for the amounts, only when there is one (Redis): the maps and strings would
    // otherwise be held through the commit for nothing.
    const hooks = this.hooks;
    const amounts = hooks ? sharedAmounts(users, tokens) : undefined;
    if (hooks && amounts) await hooks.before([...amounts.keys()]);
    const sameDb = this.ctx.logDb === this.ctx.db;
    await this.commit(this.ctx.db, {
      users,
      tokens,
      channels,
      spends: spendRows(spends),
      logs: sameDb ? logs : NO_LOGS,
    });
    // Committed: a failure to tell the shared store must not make the batch be written again.
    if (hooks && amounts)
      await hooks
        .after(amounts, spends)
        .catch((err) => this.ctx.log.error({ err }, 'shared balance update after a write failed'));
    if (!sameDb && logs.count > 0)
      await this.commit(this.ctx.logDb, { users: [], tokens: [], channels: [], spends: [], logs });
  }

  /** One transaction on `db`: on the SQLite writer thread when `db` is a file it writes, else on this thread. */
  private commit(db: Db, rows: BatchRows): Promise<void> {
    const thread = writerThreadFor(this.ctx, db);
    return thread && db.path ? thread.commit(db.path, rows) : commitBatch(db, rows);
  }
}

/** The batch's amounts under the shared store's account names (`user:<id>`, `token:<id>`). */
function sharedAmounts(users: BatchRows['users'], tokens: BatchRows['tokens']): Map<string, number> {
  const amounts = new Map<string, number>();
  for (const [id, quota] of users) amounts.set(`user:${id}`, quota);
  for (const [id, quota] of tokens) amounts.set(`token:${id}`, quota);
  return amounts;
}
