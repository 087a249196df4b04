import type { FastifyRequest } from 'fastify';
import { authenticate, checkAllowedIp } from '../../admit/auth.ts';
import type { RelayState } from '../../relay-state.ts';
import { currentRows } from '../current.ts';
import {
  invalid,
  isTerminal,
  SUCCESS,
  type SunoAnswer,
  type SunoTaskView,
  taskNotExist,
} from './protocol.ts';
import { sunoTasks } from './refresh.ts';
import { ownTask, ownTasks, type TaskRow, tasksByIds } from './store.ts';
import { taskView } from './view.ts';

/** Most ids one fetch may ask about. */
const MAX_IDS = 200;

async function caller(state: RelayState, req: FastifyRequest) {
  const c = await authenticate(state, req);
  checkAllowedIp(c.token, req.ip);
  return c;
}

/** The rows for a read, the stale unfinished ones refreshed from the upstream first. */
const current = (state: RelayState, req: FastifyRequest, rows: TaskRow[]) =>
  currentRows(req, rows, {
    name: 'suno',
    isTerminal,
    refresh: (stale) => sunoTasks.refresh(state, stale),
    reread: (ids) => tasksByIds(state.ctx, ids),
  });

/** GET /suno/fetch/{id}: the caller's task from the gateway's record, refreshed first when stale. */
export async function fetchOne(state: RelayState, req: FastifyRequest): Promise<SunoAnswer<SunoTaskView>> {
  const c = await caller(state, req);
  const { id } = req.params as { id: string };
  const row = await ownTask(state.ctx, c.user.id, id);
  if (!row) throw taskNotExist();
  const [now] = await current(state, req, [row]);
  return { code: SUCCESS, message: '', data: taskView(now) };
}

/** POST /suno/fetch {ids}: the caller's tasks among the ids (others' and unknown ones are simply absent). */
export async function fetchMany(state: RelayState, req: FastifyRequest): Promise<SunoAnswer<SunoTaskView[]>> {
  const c = await caller(state, req);
  const body = req.body as { ids?: unknown } | undefined;
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body)))
    throw invalid('the request body must be a JSON object');
  const ids = body?.ids;
  if (ids === undefined || ids === null) return { code: SUCCESS, message: '', data: [] };
  if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string'))
    throw invalid('ids must be a list of task ids');
  if (ids.length > MAX_IDS) throw invalid(`at most ${MAX_IDS} ids at a time`);
  const rows = await ownTasks(state.ctx, c.user.id, ids as string[]);
  return { code: SUCCESS, message: '', data: (await current(state, req, rows)).map(taskView) };
}
