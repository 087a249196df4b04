import { Role } from '@modelgate/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { ApiError, ok } from '../../infra/envelope.ts';
import { containsLike } from '../../infra/like.ts';
import type { BudgetColumns } from '../../ledger/budget/rule.ts';
import { creditUser, LedgerLogType, ledgerTransaction } from '../../ledger/credit.ts';
import { requireAdmin } from '../auth/guard.ts';
import { hashPassword } from '../auth/password.ts';
import { budgetChanges, budgetInput } from '../budgets/fields.ts';
import { groupNames } from '../groups/service.ts';
import type { Feature } from '../index.ts';
import { MANAGE_ACTIONS, manageUser } from './manage.ts';
import { IMPERSONATION, impersonatesAdmin, usernameKey } from './names.ts';
import { parseBody } from './parse.ts';
import { displayName, group, password, username } from './rules.ts';
import { createAccount } from './service.ts';
import { findById, USERNAME_TAKEN } from './store.ts';
import { userView } from './view.ts';

const id = z
  .number({ error: 'id must be a user id' })
  .int('id must be a user id')
  .positive('id must be a user id');

const Paging = z.object({
  p: z.coerce.number({ error: 'p must be a page number' }).int('p must be a page number').optional(),
  page_size: z.coerce
    .number({ error: 'page_size must be a number' })
    .int('page_size must be a number')
    .optional(),
  keyword: z.string().max(100, 'keyword is too long').optional(),
  group: z.string().max(64, 'group is too long').optional(),
});

const CreateBody = z.object({
  username: z
    .string({ error: 'username and password cannot be empty' })
    .trim()
    .min(1, 'username and password cannot be empty')
    .pipe(username),
  password: z
    .string({ error: 'username and password cannot be empty' })
    .min(1, 'username and password cannot be empty')
    .pipe(password),
  display_name: displayName.optional(),
  role: z
    .number({ error: 'role must be 1 or 10' })
    .refine((r) => r === Role.Common || r === Role.Admin, 'role must be 1 or 10')
    .optional(),
});

const UpdateBody = z.object({
  id,
  username: username.optional(),
  display_name: displayName.optional(),
  password: z.string({ error: 'password must be a string' }).optional(),
  group: group.optional(),
  quota: z
    .number({ error: 'quota must be an integer' })
    .int('quota must be an integer')
    .nonnegative('quota must not be negative')
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  ...budgetInput,
});

const ManageBody = z.object({
  id,
  action: z.enum(MANAGE_ACTIONS, { error: `action must be one of ${MANAGE_ACTIONS.join(', ')}` }),
});

/** Reads `p` (from 1) and `page_size` (10 by default, at most 100). */
function paging(q: z.infer<typeof Paging>) {
  const page = Math.max(1, q.p ?? 1);
  const pageSize = Math.min(100, Math.max(1, q.page_size ?? 10));
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** User administration: admins only. */
export const adminUsersFeature: Feature = (app, ctx: AppContext) => {
  const admin = requireAdmin(ctx);
  const db = ctx.db.db;

  const list = async (q: z.infer<typeof Paging>) => {
    const { page, pageSize, offset } = paging(q);
    let base = db.selectFrom('users');
    const keyword = q.keyword?.trim();
    if (keyword) {
      base = base.where((eb) => {
        const any = [
          containsLike('username', keyword),
          containsLike('display_name', keyword),
          containsLike('email', keyword),
        ];
        if (/^\d{1,15}$/.test(keyword)) return eb.or([eb('id', '=', Number(keyword)), ...any]);
        return eb.or(any);
      });
    }
    if (q.group?.trim()) base = base.where('group', '=', q.group.trim());
    const [{ n }] = await base.select((eb) => eb.fn.countAll<number>().as('n')).execute();
    const rows = await base.selectAll().orderBy('id', 'desc').limit(pageSize).offset(offset).execute();
    return { items: rows.map(userView), total: Number(n), page, page_size: pageSize };
  };

  app.get('/user', { preHandler: admin }, async (req) => {
    const q = parseBody(Paging, req.query);
    return ok(await list({ p: q.p, page_size: q.page_size }));
  });

  app.get('/user/search', { preHandler: admin }, async (req) => ok(await list(parseBody(Paging, req.query))));

  /** The target, or a 4xx: unknown, or not below the actor (root may act on anyone). */
  const target = async (actorRole: number, targetId: number, status = 400) => {
    const row = await findById(db, targetId);
    if (!row) throw new ApiError('user not found', status);
    if (row.role >= actorRole && actorRole < Role.Root) {
      throw new ApiError('you cannot view or change a user whose role is equal to or above yours', 403);
    }
    return row;
  };

  app.get('/user/:id', { preHandler: admin }, async (req) => {
    const raw = (req.params as { id: string }).id;
    if (!/^\d{1,15}$/.test(raw)) throw new ApiError('id must be a user id');
    return ok(userView(await target(req.user!.role, Number(raw), 404)));
  });

  app.post('/user', { preHandler: admin }, async (req) => {
    const body = parseBody(CreateBody, req.body);
    const role = body.role ?? Role.Common;
    if (role >= req.user!.role)
      throw new ApiError('you cannot create a user whose role is equal to or above yours', 403);
    const newId = await createAccount(
      ctx,
      {
        username: body.username,
        passwordHash: await hashPassword(body.password),
        display_name: body.display_name,
        role,
      },
      { ip: req.ip },
    );
    return ok({ id: newId }, 'user created');
  });

  app.put('/user', { preHandler: admin }, async (req) => {
    const body = parseBody(UpdateBody, req.body);
    const actor = req.user!;
    const row = await target(actor.role, body.id);
    const set: {
      username?: string;
      username_key?: string;
      display_name?: string;
      password?: string;
      group?: string;
    } & Partial<BudgetColumns> = budgetChanges(row, body, Date.now());
    if (body.username !== undefined && body.username !== row.username) {
      if (await impersonatesAdmin(ctx.db.db, body.username, row.id)) throw new ApiError(IMPERSONATION);
      set.username = body.username;
      set.username_key = usernameKey(body.username);
    }
    if (body.display_name !== undefined)
      set.display_name = body.display_name || (body.username ?? row.username);
    if (body.password)
      set.password = await hashPassword(
        parseBody(z.object({ password }), { password: body.password }).password,
      );
    if (body.group !== undefined && body.group !== row.group) {
      if (!groupNames(ctx).includes(body.group))
        throw new ApiError(`group ${body.group} does not exist (add it to GroupRatio first)`);
      set.group = body.group;
    }
    const delta = body.quota === undefined ? 0 : body.quota - Number(row.quota);
    try {
      await ledgerTransaction(ctx, async (tx) => {
        if (Object.keys(set).length)
          await tx.trx.updateTable('users').set(set).where('id', '=', row.id).execute();
        if (delta !== 0) {
          await creditUser(
            ctx,
            {
              userId: row.id,
              delta,
              logType: LedgerLogType.Manage,
              content: `Administrator ${actor.username} changed the quota from ${row.quota} to ${body.quota}`,
              ip: req.ip,
              other: {
                content_code: 'admin_quota',
                admin_id: actor.id,
                admin: actor.username,
                from: Number(row.quota),
                to: body.quota,
              },
            },
            tx,
          );
        }
        tx.touched.add(row.id);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ApiError(USERNAME_TAKEN);
      throw err;
    }
    return ok(undefined, 'user updated');
  });

  app.post('/user/manage', { preHandler: admin }, async (req) => {
    const body = parseBody(ManageBody, req.body);
    return ok(await manageUser(ctx, req.user!, body.id, body.action));
  });
};
