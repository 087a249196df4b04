import type { AppContext } from '../../context.ts';
import { periodAt, ruleOf } from './rule.ts';

const TABLES = ['tokens', 'users'] as const;
/** The longest the job sleeps: a budget saved meanwhile renews at most this late in the database. */
const MAX_SLEEP_MS = 60_000;
const BATCH = 500;

/**
 * Renews, in the database, every budget whose period has ended by `nowMs`: `budget_used` back to 0 and
 * `budget_reset_at` on to the end of the period containing `nowMs`, each row by a compare-and-set on the old
 * `budget_reset_at`. Several instances (or the writer, which renews a row itself when it writes the first charge
 * of a new period) may race on a row: exactly one of them renews it, the others change nothing.
 * Returns how many rows this call renewed.
 *
 * The relay does not wait for this: every instance moves its in-memory budgets to the new period by the clock.
 * The job keeps the stored spend right for the console and for rows with no traffic.
 */
export async function renewDueBudgets(ctx: AppContext, nowMs: number): Promise<number> {
  const nowSec = Math.floor(nowMs / 1000);
  let renewed = 0;
  for (const table of TABLES) {
    let afterId = 0;
    for (;;) {
      const rows = await ctx.db.db
        .selectFrom(table)
        .select([
          'id',
          'budget_quota',
          'budget_period',
          'budget_period_days',
          'budget_reset_time',
          'budget_reset_at',
        ])
        .where('budget_reset_at', '>', 0)
        .where('budget_reset_at', '<=', nowSec)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(BATCH)
        .execute();
      for (const row of rows) {
        const rule = ruleOf(row);
        const next = rule ? periodAt(rule, nowMs).end : 0;
        const res = await ctx.db.db
          .updateTable(table)
          .set({ budget_used: 0, budget_reset_at: next })
          .where('id', '=', row.id)
          .where('budget_reset_at', '=', row.budget_reset_at)
          .executeTakeFirst();
        renewed += Number(res.numUpdatedRows);
      }
      if (rows.length < BATCH) break;
      afterId = Number(rows[rows.length - 1].id);
    }
  }
  return renewed;
}

/** The earliest stored renewal still to come (unix seconds), or 0 when no row has a budget. */
async function nextRenewal(ctx: AppContext): Promise<number> {
  let next = 0;
  for (const table of TABLES) {
    const row = await ctx.db.db
      .selectFrom(table)
      .select((eb) => eb.fn.min<number>('budget_reset_at').as('at'))
      .where('budget_reset_at', '>', 0)
      .executeTakeFirst();
    const at = Number(row?.at ?? 0);
    if (at > 0 && (next === 0 || at < next)) next = at;
  }
  return next;
}

/**
 * Runs the renewal on the master: at start, then when the next stored period ends (at most a minute apart).
 * `clock` is the relay ledger's, so a test that moves it moves the job too.
 */
export function startBudgetRenewals(ctx: AppContext, clock: () => number): void {
  if (ctx.config.nodeType !== 'master') return;
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    running = (async () => {
      await renewDueBudgets(ctx, clock());
      const next = await nextRenewal(ctx);
      return next ? Math.max(0, next * 1000 - clock()) : MAX_SLEEP_MS;
    })()
      .catch((err) => {
        ctx.log.error({ err }, 'budget renewal failed');
        return MAX_SLEEP_MS;
      })
      .then((wait) => {
        if (stopped) return;
        timer = setTimeout(tick, Math.min(MAX_SLEEP_MS, wait + 50));
        timer.unref();
      });
  };
  tick();
  ctx.onClose(async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  });
}
