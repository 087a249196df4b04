import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.ts';
import { type AuditChange, diffSnapshots, type Snapshot } from './diff.ts';
import { type Scope, type Tracker, trackerFor } from './entities.ts';
import { redactDeep } from './redact.ts';
import { appendAudit } from './store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on a mutating console call by an authenticated user: what its entity looked like before. */
    audit?: { tracker?: Tracker; before?: Snapshot; scope?: Scope };
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The audit log's one hook on the console API. Every mutating route gets a last preHandler (after its role
 * guard has set `req.user`) that reads the rows it may change; `onSend` reads them again when the call
 * succeeded and appends the before/after difference to the audit log before the answer goes out. Calls that
 * change nothing (a calculation behind POST, a save of the same values) leave no entry. Registered before the
 * features, so it sees every route they add.
 */
export function registerAuditHooks(api: FastifyInstance, ctx: AppContext): void {
  const capture: preHandlerAsyncHookHandler = async (req) => {
    if (!req.user || !MUTATING.has(req.method)) return;
    const tracker = trackerFor(req.routeOptions.url ?? '');
    req.audit = { tracker };
    if (tracker) {
      const { rows, scope } = await tracker.read(ctx, req);
      req.audit.before = rows;
      req.audit.scope = scope;
    }
  };
  api.addHook('onRoute', (route) => {
    if (![route.method].flat().some((m) => MUTATING.has(m))) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), capture];
  });
  api.addHook('onSend', async (req, reply, payload) => {
    if (req.audit && req.user && reply.statusCode < 400) {
      try {
        await record(ctx, req, reply);
      } catch (err) {
        req.log.error({ err }, 'audit: the change was made but could not be recorded');
      }
    }
    return payload;
  });
}

async function record(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { tracker, before, scope } = req.audit!;
  const route = req.routeOptions.url ?? req.url.split('?')[0];
  let changes: AuditChange[];
  if (tracker && before) {
    const after = await tracker.read(ctx, req, scope);
    changes = diffSnapshots(tracker.entity, before, after.rows, tracker.rules);
    if (!changes.length) return;
  } else {
    const query = redactDeep(req.query ?? {});
    changes = [{ entity: entityOf(route), id: '', op: 'action', fields: { query: [null, query] } }];
  }
  const user = req.user!;
  await appendAudit(ctx.db, {
    userId: user.id,
    username: user.username,
    role: user.role,
    ip: req.ip,
    method: req.method,
    path: req.url.split('?')[0],
    action: `${req.method} ${route}`,
    entity: tracker?.entity ?? entityOf(route),
    target: targetOf(changes),
    status: reply.statusCode,
    changes,
  });
}

/** `/api/log/` -> `log`. */
const entityOf = (route: string) => route.replace(/^\/api\//, '').split('/')[0] || 'api';

/** `channel:3,channel:4`, shortened to fit the column (the changes list them all). */
function targetOf(changes: AuditChange[]): string {
  const ids = changes.filter((c) => c.id).map((c) => `${c.entity}:${c.id}`);
  const kept: string[] = [];
  for (const id of ids) {
    if ([...kept, id].join(',').length > 176) break;
    kept.push(id);
  }
  return kept.length === ids.length ? kept.join(',') : `${kept.join(',')} (+${ids.length - kept.length})`;
}
