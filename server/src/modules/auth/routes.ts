import { UserStatus } from '@modelgate/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { criticalRateLimit, loginFailureLimiter } from '../../infra/rate-limit.ts';
import type { Feature } from '../index.ts';
import { sessionTagOf } from '../users/cache.ts';
import { IMPERSONATION, impersonatesAdmin } from '../users/names.ts';
import { parseBody } from '../users/parse.ts';
import { email as emailRule, password as passwordRule, username as usernameRule } from '../users/rules.ts';
import { createAccount } from '../users/service.ts';
import { findForLogin, USERNAME_TAKEN, usernameTaken } from '../users/store.ts';
import { EMAIL_CODE } from './email-routes.ts';
import { requireUser } from './guard.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { clearSession, readSession, setSession } from './session.ts';
import { turnstileCheck } from './turnstile.ts';
import { consumeCode } from './verification.ts';

const LoginBody = z.object({
  username: z
    .string({ error: 'please enter username and password' })
    .trim()
    .min(1, 'please enter username and password')
    .max(100),
  password: z
    .string({ error: 'please enter username and password' })
    .min(1, 'please enter username and password')
    .max(200),
});

const RegisterBody = z.object({
  username: usernameRule,
  password: passwordRule,
  password2: z.string().optional(),
  email: emailRule.optional(),
  verification_code: z.string().trim().max(32).optional(),
  aff_code: z.string().trim().max(32).optional(),
});

/** Password login, logout and registration. */
export const authFeature: Feature = (app, ctx: AppContext) => {
  const critical = criticalRateLimit(ctx);
  const botCheck = turnstileCheck(ctx);
  const failures = loginFailureLimiter(ctx);

  app.post('/user/login', { onRequest: critical, preHandler: botCheck }, async (req, reply) => {
    if (!ctx.options.bool('PasswordLoginEnabled'))
      throw new ApiError('password login has been disabled by the administrator', 403);
    const body = parseBody(LoginBody, req.body);
    const account = body.username.toLowerCase();
    if (await failures.full(account))
      throw new ApiError('too many failed logins for this account; try again in 15 minutes', 429);
    const user = await findForLogin(ctx.db.db, body.username);
    if (!(await verifyPassword(body.password, user?.password)) || !user) {
      await failures.hit(account);
      throw new ApiError('wrong username or password');
    }
    if (user.status !== UserStatus.Enabled) throw new ApiError('this user has been banned', 403);
    setSession(req, reply, Number(user.id), sessionTagOf(user));
    return ok({
      id: Number(user.id),
      username: user.username,
      display_name: user.display_name,
      role: user.role,
      status: user.status,
      group: user.group,
    });
  });

  // Logout revokes this session on every instance, so a copied cookie stops working too.
  app.get('/user/logout', async (req, reply) => {
    const session = readSession(req);
    if (session) await ctx.sessions.revoke(session.sid, session.expiresAt);
    clearSession(req, reply);
    return ok();
  });

  // "Log out everywhere": a new session version ends every session of this user, this one included.
  app.post('/user/logout_all', { preHandler: requireUser(ctx) }, async (req, reply) => {
    const id = req.user!.id;
    await ctx.db.db
      .updateTable('users')
      .set((eb) => ({ session_version: eb('session_version', '+', 1) }))
      .where('id', '=', id)
      .execute();
    await ctx.bus.publish(`user:${id}`);
    clearSession(req, reply);
    return ok(undefined, 'every session of this account has ended');
  });

  app.post('/user/register', { onRequest: critical, preHandler: botCheck }, async (req) => {
    const o = ctx.options;
    if (!o.bool('RegisterEnabled'))
      throw new ApiError('new user registration has been closed by the administrator', 403);
    if (!o.bool('PasswordRegisterEnabled')) {
      throw new ApiError(
        'registration with a password has been closed by the administrator; sign up with a third-party account',
        403,
      );
    }
    const body = parseBody(RegisterBody, req.body);
    if (body.password2 !== undefined && body.password2 !== body.password)
      throw new ApiError('two passwords do not match');
    let email = '';
    if (o.bool('EmailVerificationEnabled')) {
      if (!body.email || !body.verification_code) {
        throw new ApiError('e-mail verification is on: enter your e-mail address and the verification code');
      }
      if (!(await consumeCode(ctx, EMAIL_CODE, body.email, body.verification_code)))
        throw new ApiError('the verification code is wrong or has expired');
      email = body.email;
      const used = await ctx.db.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirst();
      if (used) throw new ApiError('this e-mail address is already in use');
    }
    if (await impersonatesAdmin(ctx.db.db, body.username)) throw new ApiError(IMPERSONATION);
    if (await usernameTaken(ctx.db.db, body.username)) throw new ApiError(USERNAME_TAKEN);
    await createAccount(
      ctx,
      { username: body.username, passwordHash: await hashPassword(body.password), email },
      { affCode: body.aff_code || undefined, ip: req.ip },
    );
    return ok(undefined, 'registered');
  });
};
