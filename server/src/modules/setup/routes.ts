import { Role } from '@modelgate/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { criticalRateLimit } from '../../infra/rate-limit.ts';
import { creditUser, describeQuota, LedgerLogType, ledgerTransaction } from '../../ledger/credit.ts';
import { hashPassword } from '../auth/password.ts';
import type { Feature } from '../index.ts';
import { parseBody } from '../users/parse.ts';
import { PASSWORD_MAX, USERNAME_MAX } from '../users/rules.ts';
import { insertUser } from '../users/store.ts';
import { markSetupDone, rememberSetupDone, setupState } from './state.ts';

export const ROOT_INITIAL_QUOTA = 100_000_000;
export const ALREADY_INITIALIZED = 'the system has already been initialized';

const flag = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
  error: 'usage mode flags must be true or false',
});

const SetupBody = z.object({
  username: z.string({ error: 'Please enter the admin username' }).optional(),
  password: z.string({ error: 'password must be a string' }).optional(),
  confirmPassword: z.string({ error: 'confirmPassword must be a string' }).optional(),
  SelfUseModeEnabled: flag.optional().default(false),
  DemoSiteEnabled: flag.optional().default(false),
});

/** First-run setup: create root once and choose the usage mode. */
export const setupFeature: Feature = (app, ctx: AppContext) => {
  app.get('/setup', async () => ok(await setupState(ctx)));

  app.post('/setup', { onRequest: criticalRateLimit(ctx) }, async (req) => {
    const state = await setupState(ctx);
    if (state.status) throw new ApiError(ALREADY_INITIALIZED);
    const body = parseBody(SetupBody, req.body);
    if (body.SelfUseModeEnabled && body.DemoSiteEnabled)
      throw new ApiError('choose one usage mode: self-use or demo site, not both');

    let root: { username: string; passwordHash: string } | undefined;
    if (!state.root_init) {
      const username = (body.username ?? '').trim();
      const password = body.password ?? '';
      if (!username) throw new ApiError('Please enter the admin username');
      if (username.length > USERNAME_MAX || /\s/.test(username)) {
        throw new ApiError(`the admin username must be at most ${USERNAME_MAX} characters, without spaces`);
      }
      if (password.length < 8) throw new ApiError('Password must be at least 8 characters long');
      if (password.length > PASSWORD_MAX)
        throw new ApiError(`Password must be at most ${PASSWORD_MAX} characters long`);
      if (password !== (body.confirmPassword ?? '')) throw new ApiError('The two passwords do not match');
      root = { username, passwordHash: await hashPassword(password) };
    }

    try {
      await ledgerTransaction(ctx, async (tx) => {
        await markSetupDone(ctx, tx.trx);
        if (!root) return;
        const id = await insertUser(tx.trx, { ...root, display_name: 'Root User', role: Role.Root });
        await creditUser(
          ctx,
          {
            userId: id,
            delta: ROOT_INITIAL_QUOTA,
            logType: LedgerLogType.System,
            content: `Initial root quota ${describeQuota(ctx, ROOT_INITIAL_QUOTA)}`,
            other: { content_code: 'initial_quota' },
          },
          tx,
        );
      });
    } catch (err) {
      // A concurrent setup won the race for the one setups row.
      if (isUniqueViolation(err)) throw new ApiError(ALREADY_INITIALIZED);
      throw err;
    }
    rememberSetupDone(ctx);
    await ctx.options.set('SelfUseModeEnabled', String(body.SelfUseModeEnabled));
    await ctx.options.set('DemoSiteEnabled', String(body.DemoSiteEnabled));
    // The one moment the request's address is trusted for links: it is the root administrator's own.
    if (!ctx.options.get('ServerAddress').trim())
      await ctx.options.set('ServerAddress', `${req.protocol}://${req.host}`);
    return ok(undefined, 'system initialized');
  });
};
