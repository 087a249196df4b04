import { seedToken } from '../../server/test/support/relay-seed.ts';
import { ROOT } from './accounts.ts';
import type { Gateway } from './gateway.ts';

/** An API key of root's: root's balance set to `quota`, and a new unlimited token. */
export async function rootApiKey(gw: Gateway, quota: number): Promise<string> {
  const root = await gw.ctx.db.db
    .selectFrom('users')
    .select(['id'])
    .where('username', '=', ROOT.username)
    .executeTakeFirstOrThrow();
  await gw.ctx.db.db.updateTable('users').set({ quota }).where('id', '=', root.id).execute();
  return (await seedToken(gw.ctx, { userId: Number(root.id), unlimited: true })).apiKey;
}
