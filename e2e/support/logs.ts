import { relayState } from '../../server/src/relay/relay-state.ts';
import type { Gateway } from './gateway.ts';

/**
 * How many usage-log rows of `gw` mention `text` in their `other` JSON, after the batched writer has flushed.
 * A relayed answer reaches its client before its row is written, so a test polls this before opening the
 * log page, which reads what is in the database when it loads.
 */
export async function loggedRows(gw: Gateway, text: string): Promise<number> {
  await relayState(gw.ctx).writer.flush();
  const rows = await gw.ctx.logDb.db
    .selectFrom('logs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('other', 'like', `%${text}%`)
    .executeTakeFirst();
  return Number(rows?.n ?? 0);
}

/**
 * Unix times for rows seeded up to `span` seconds back that the log and task pages' default window (today from local
 * midnight) still shows. Just after midnight, `now - ago` would fall on yesterday; the rows then sit as far
 * after midnight as they would have sat before now, in the same order (at most `span` seconds ahead of now,
 * well inside the window's end an hour ahead).
 */
export function todayAgo(span: number): (ago: number) => number {
  const now = Math.floor(Date.now() / 1000);
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const anchor = Math.max(now, Math.floor(midnight.getTime() / 1000) + span);
  return (ago) => anchor - Math.min(ago, span);
}
