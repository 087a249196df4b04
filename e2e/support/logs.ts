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
