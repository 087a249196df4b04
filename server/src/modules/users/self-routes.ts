import { Role, UserStatus } from '@modelgate/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { assertFetchableUrl, userUrlPolicy } from '../../infra/ssrf.ts';
import { describeQuota, transferAffiliate } from '../../ledger/credit.ts';
import { issueAccessToken } from '../auth/access-token.ts';
import { requireUser } from '../auth/guard.ts';
import { hashPassword, verifyPassword } from '../auth/password.ts';
import { clearSession, setSession } from '../auth/session.ts';
import type { Feature } from '../index.ts';
import { freshAffCode } from './aff-code.ts';
import { sessionTagOf } from './cache.ts';
import { parseBody } from './parse.ts';
import { displayName, password } from './rules.ts';
import { parseUserSetting, type UserSetting } from './setting.ts';
import { findById } from './store.ts';
import { userView } from './view.ts';

const SelfUpdate = z.object({
  display_name: displayName.optional(),
  password: z.string({ error: 'password must be a string' }).optional(),
  original_password: z.string({ error: 'original_password must be a string' }).optional(),
});

const AffTransfer = z.object({
  quota: z.number({ error: 'quota must be an integer' }).int('quota must be an integer'),
});

const SettingBody = z.object({
  notify_type: z.enum(['email', 'webhook'], { error: 'notify_type must be email or webhook' }),
  quota_warning_threshold: z
    .number({ error: 'quota_warning_threshold must be a number' })
    .finite('quota_warning_threshold must be a number')
    .nonnegative('quota_warning_threshold must not be negative'),
  webhook_url: z
    .string({ error: 'webhook_url must be a string' })
    .trim()
    .max(512, 'webhook_url is too long')
    .optional()
    .default(''),
  webhook_secret: z
    .string({ error: 'webhook_secret must be a string' })
    .max(256, 'webhook_secret is too long')
    .optional()
    .default(''),
  notification_email: z
    .string({ error: 'notification_email must be a string' })
    .trim()
    .max(128, 'notification_email is too long')
    .optional()
    .default(''),
  accept_unset_model_ratio_model: z
    .boolean({ error: 'accept_unset_model_ratio_model must be true or false' })
    .optional()
    .default(false),
});

const isHttpsUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' && !!u.hostname;
  } catch {
    return false;
  }
};

/** The caller's own account: the personal settings page. */
export const selfFeature: Feature = (app, ctx: AppContext) => {
  const user = requireUser(ctx);
  const db = ctx.db.db;
  const load = async (id: number) => {
    const row = await findById(db, id);
    if (!row) throw new ApiError('user not found', 404);
    return row;
  };
  const changed = (id: number) => ctx.bus.publish(`user:${id}`);

  app.get('/user/self', { preHandler: user }, async (req) => ok(userView(await load(req.user!.id))));

  app.put('/user/self', { preHandler: user }, async (req, reply) => {
    const body = parseBody(SelfUpdate, req.body);
    const row = await load(req.user!.id);
    const set: { display_name?: string; password?: string } = {};
    if (body.display_name !== undefined) set.display_name = body.display_name || row.username;
    if (body.password !== undefined && body.password !== '') {
      const next = parseBody(z.object({ password }), { password: body.password }).password;
      if (!body.original_password) throw new ApiError('enter the original password to change it');
      if (!(await verifyPassword(body.original_password, row.password)))
        throw new ApiError('the original password is wrong');
      if (next === body.original_password)
        throw new ApiError('the new password must differ from the original one');
      set.password = await hashPassword(next);
    }
    if (Object.keys(set).length === 0) throw new ApiError('nothing to update');
    await db.updateTable('users').set(set).where('id', '=', row.id).execute();
    // Answered once this instance's user cache holds the new password, which the fresh cookie below is
    // checked against: a request right after the change must not be refused as an ended session.
    await changed(row.id);
    // The new password ends every other session; this one continues with a fresh cookie.
    if (set.password && req.authVia === 'session')
      setSession(
        req,
        reply,
        row.id,
        sessionTagOf({ password: set.password, session_version: row.session_version }),
      );
    return ok(undefined, set.password ? 'password changed' : 'updated');
  });

  app.delete('/user/self', { preHandler: user }, async (req, reply) => {
    if (req.user!.role >= Role.Root) throw new ApiError('the root account cannot be deleted');
    await db
      .updateTable('users')
      .set({ deleted_at: Math.floor(Date.now() / 1000), status: UserStatus.Deleted, access_token: null })
      .where('id', '=', req.user!.id)
      .execute();
    await changed(req.user!.id);
    clearSession(req, reply);
    return ok(undefined, 'account deleted');
  });

  app.get('/user/token', { preHandler: user }, async (req) => ok(await issueAccessToken(ctx, req.user!.id)));

  app.get('/user/aff', { preHandler: user }, async (req) => {
    const row = await load(req.user!.id);
    if (row.aff_code) return ok(row.aff_code);
    const code = await freshAffCode(db);
    await db
      .updateTable('users')
      .set({ aff_code: code })
      .where('id', '=', row.id)
      .where('aff_code', '=', '')
      .execute();
    return ok((await load(row.id)).aff_code);
  });

  app.post('/user/aff_transfer', { preHandler: user }, async (req) => {
    const { quota } = parseBody(AffTransfer, req.body);
    const min = Math.ceil(ctx.options.float('QuotaPerUnit'));
    if (quota < min) throw new ApiError(`the minimum transfer amount is ${describeQuota(ctx, min)}`);
    await transferAffiliate(ctx, req.user!.id, quota);
    return ok(undefined, 'transferred');
  });

  app.put('/user/setting', { preHandler: user }, async (req) => {
    const body = parseBody(SettingBody, req.body);
    if (body.notify_type === 'webhook' && !body.webhook_url) throw new ApiError('enter the webhook address');
    if (body.webhook_url && !isHttpsUrl(body.webhook_url))
      throw new ApiError('the webhook address must be an https:// URL');
    // The gateway will call this address: refuse internal targets now, not only when a warning is sent.
    if (body.webhook_url) await assertFetchableUrl(body.webhook_url, userUrlPolicy(ctx.options));
    if (body.notification_email && !z.email().safeParse(body.notification_email).success)
      throw new ApiError('invalid notification e-mail address');
    const row = await load(req.user!.id);
    const previous = parseUserSetting(row.setting);
    const next: UserSetting = {
      notify_type: body.notify_type,
      quota_warning_threshold: body.quota_warning_threshold,
      webhook_url: body.webhook_url,
      // A blank secret keeps the stored one (the form never receives it back).
      webhook_secret: body.webhook_secret || previous.webhook_secret,
      notification_email: body.notification_email,
      accept_unset_model_ratio_model: body.accept_unset_model_ratio_model,
    };
    await db
      .updateTable('users')
      .set({ setting: JSON.stringify(next) })
      .where('id', '=', row.id)
      .execute();
    await changed(row.id);
    return ok(undefined, 'settings updated');
  });
};
