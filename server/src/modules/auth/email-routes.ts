import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { criticalRateLimit } from '../../infra/rate-limit.ts';
import type { Feature } from '../index.ts';
import { serverAddress } from '../options/server-address.ts';
import { parseBody } from '../users/parse.ts';
import { email as emailRule } from '../users/rules.ts';
import { requireUser } from './guard.ts';
import { sendMail } from './mail.ts';
import { hashPassword } from './password.ts';
import { turnstileCheck } from './turnstile.ts';
import { consumeCode, issueCode } from './verification.ts';

/** Code purposes: the 6-digit e-mail code (registration and binding) and the password-reset token. */
export const EMAIL_CODE = 'email';
const RESET_TOKEN = 'reset';

const EmailQuery = z.object({ email: emailRule.refine((s) => s !== '', 'invalid email address') });
const BindQuery = EmailQuery.extend({
  code: z.string({ error: 'enter the verification code' }).min(1, 'enter the verification code'),
});
const ResetBody = z.object({
  email: emailRule.refine((s) => s !== '', 'invalid email address'),
  token: z
    .string({ error: 'the reset link is invalid or has expired' })
    .min(1, 'the reset link is invalid or has expired'),
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The whitelist and alias rules of the e-mail restriction options. */
function checkAllowedAddress(ctx: AppContext, address: string): void {
  const [local, domain = ''] = address.toLowerCase().split('@');
  if (ctx.options.bool('EmailDomainRestrictionEnabled')) {
    const allowed = ctx.options
      .get('EmailDomainWhitelist')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    if (!allowed.includes(domain)) {
      throw new ApiError(`the administrator only accepts e-mail addresses at: ${allowed.join(', ')}`);
    }
  }
  if (ctx.options.bool('EmailAliasRestrictionEnabled') && /[+.]/.test(local)) {
    throw new ApiError('the administrator does not accept e-mail aliases (a + or . before the @)');
  }
}

async function emailInUse(ctx: AppContext, address: string, exceptUserId = 0): Promise<boolean> {
  const row = await ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', address)
    .where('id', '!=', exceptUserId)
    .executeTakeFirst();
  return !!row;
}

/**
 * E-mail codes and password reset: sending a
 * verification code, binding an e-mail, sending a reset link and consuming it for a new password.
 */
export const emailFeature: Feature = (app, ctx: AppContext) => {
  const critical = criticalRateLimit(ctx);
  const botCheck = turnstileCheck(ctx);
  const systemName = () => escapeHtml(ctx.options.get('SystemName'));

  app.get('/verification', { onRequest: critical, preHandler: botCheck }, async (req) => {
    const { email } = parseBody(EmailQuery, req.query);
    checkAllowedAddress(ctx, email);
    if (await emailInUse(ctx, email)) throw new ApiError('this e-mail address is already in use');
    const code = await issueCode(ctx, EMAIL_CODE, email);
    await sendMail(
      ctx,
      email,
      `${ctx.options.get('SystemName')} e-mail verification`,
      `<p>Your verification code for ${systemName()} is <strong>${code}</strong>.</p><p>It is valid for 10 minutes.</p>`,
    );
    return ok(undefined, 'verification code sent');
  });

  app.get('/oauth/email/bind', { onRequest: critical, preHandler: requireUser(ctx) }, async (req) => {
    const { email, code } = parseBody(BindQuery, req.query);
    if (!(await consumeCode(ctx, EMAIL_CODE, email, code)))
      throw new ApiError('the verification code is wrong or has expired');
    if (await emailInUse(ctx, email, req.user!.id))
      throw new ApiError('this e-mail address is already in use');
    await ctx.db.db.updateTable('users').set({ email }).where('id', '=', req.user!.id).execute();
    await ctx.bus.publish(`user:${req.user!.id}`);
    return ok(undefined, 'e-mail bound');
  });

  // The answer does not say whether the address belongs to an account.
  app.get('/reset_password', { onRequest: critical, preHandler: botCheck }, async (req) => {
    const { email } = parseBody(EmailQuery, req.query);
    const base = serverAddress(ctx.options, 'password reset by e-mail');
    const user = await ctx.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (user) {
      const token = await issueCode(ctx, RESET_TOKEN, email, true);
      const link = `${base}/user/reset?email=${encodeURIComponent(email)}&token=${token}`;
      await sendMail(
        ctx,
        email,
        `${ctx.options.get('SystemName')} password reset`,
        `<p>Someone asked to reset the password of your ${systemName()} account.</p>` +
          `<p><a href="${escapeHtml(link)}">Reset the password</a> (valid for 10 minutes). If it was not you, ignore this e-mail.</p>`,
      );
    }
    return ok(undefined, 'if this address belongs to an account, a reset e-mail is on its way');
  });

  app.post('/user/reset', { onRequest: critical }, async (req) => {
    const { email, token } = parseBody(ResetBody, req.body);
    if (!(await consumeCode(ctx, RESET_TOKEN, email, token)))
      throw new ApiError('the reset link is invalid or has expired');
    const user = await ctx.db.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', email)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .executeTakeFirst();
    if (!user) throw new ApiError('the reset link is invalid or has expired');
    const password = randomBytes(9).toString('base64url');
    await ctx.db.db
      .updateTable('users')
      .set({ password: await hashPassword(password) })
      .where('id', '=', user.id)
      .execute();
    await ctx.bus.publish(`user:${user.id}`);
    return ok(password, 'password reset');
  });
};
