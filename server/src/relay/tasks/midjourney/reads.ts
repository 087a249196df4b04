import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ChannelStatus } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { guardedFetch, userUrlPolicy } from '../../../infra/ssrf.ts';
import { authenticate, checkAllowedIp } from '../../admit/auth.ts';
import { scrub } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { withKey } from '../../route/failover.ts';
import { currentRows } from '../current.ts';
import { invalid, isTerminal, MjCode, MjError, type MjTask, notFound } from './protocol.ts';
import { midjourneyTasks } from './refresh.ts';
import { ownTask, ownTasks, type TaskRow, tasksByIds, tasksByMjId } from './store.ts';
import { callChannel, SEED_TIMEOUT_MS } from './upstream.ts';
import { taskView, validImageSignature } from './view.ts';

/** Most ids one list-by-condition may ask about. */
const MAX_IDS = 200;

async function caller(state: RelayState, req: FastifyRequest) {
  const c = await authenticate(state, req, { mjSecret: true });
  checkAllowedIp(c.token, req.ip);
  return c;
}

/** The rows for a read, the stale unfinished ones refreshed from the upstream first. */
const current = (state: RelayState, req: FastifyRequest, rows: TaskRow[]) =>
  currentRows(req, rows, {
    name: 'midjourney',
    isTerminal,
    refresh: (stale) => midjourneyTasks.refresh(state, stale),
    reread: (ids) => tasksByIds(state.ctx, ids),
  });

/** GET /mj/task/{id}/fetch: the caller's task from the gateway's record, refreshed first when stale. */
export async function fetchTask(state: RelayState, req: FastifyRequest): Promise<MjTask> {
  const c = await caller(state, req);
  const { id } = req.params as { id: string };
  const row = await ownTask(state.ctx, c.user.id, id);
  if (!row) throw notFound();
  const [now] = await current(state, req, [row]);
  return taskView(state.ctx, now);
}

/** POST /mj/task/list-by-condition {ids}: the caller's tasks among the ids (others' are simply absent). */
export async function listByCondition(state: RelayState, req: FastifyRequest): Promise<MjTask[]> {
  const c = await caller(state, req);
  const ids = (req.body as { ids?: unknown } | undefined)?.ids;
  if (ids === undefined || ids === null) return [];
  if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string'))
    throw invalid('ids must be a list of task ids');
  if (ids.length > MAX_IDS) throw invalid(`at most ${MAX_IDS} ids at a time`);
  const rows = await ownTasks(state.ctx, c.user.id, ids as string[]);
  return (await current(state, req, rows)).map((r) => taskView(state.ctx, r));
}

/** GET /mj/task/{id}/image-seed: asked of the channel that ran the caller's task, answered as it answers. */
export async function imageSeed(state: RelayState, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const c = await caller(state, req);
  const { id } = req.params as { id: string };
  const row = await ownTask(state.ctx, c.user.id, id);
  if (!row) throw notFound();
  const channel = state.channels.get(row.channel_id);
  const ch = channel && channel.status === ChannelStatus.Enabled ? withKey(channel) : null;
  if (!ch) throw new MjError(400, MjCode.ValidationError, 'the channel of this task is no longer available');
  const res = await callChannel(state, ch, {
    method: 'GET',
    path: `/mj/task/${encodeURIComponent(row.mj_id)}/image-seed`,
    timeoutMs: SEED_TIMEOUT_MS,
  });
  if (res.json === undefined)
    throw new MjError(502, MjCode.Failure, `the upstream answered ${res.status} without a proxy answer`);
  const status = res.status >= 500 || res.status === 401 ? 502 : res.status;
  reply
    .code(status)
    .header('content-type', 'application/json')
    .send(scrub(JSON.stringify(res.json), [ch.key, ch.baseUrl]));
}

/**
 * POST /mj/notify: the upstream's callback. Its body is not trusted (anyone can post here): it only names the
 * task, which is then refreshed from its channel, with the channel's secret, like the task loop would.
 */
export async function notify(
  state: RelayState,
  req: FastifyRequest,
): Promise<{ code: number; description: string; result: string }> {
  const id = (req.body as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || !id) throw invalid('id is required');
  const rows = await tasksByMjId(state.ctx, id);
  if (!rows.length) throw notFound();
  await midjourneyTasks.refresh(state, rows, true);
  return { code: MjCode.Success, description: 'success', result: id };
}

/**
 * GET /mj/image/{id}?sig=: the task's image streamed from where the upstream put it, for links the gateway
 * signed (MjForwardUrlEnabled). The URL comes from the upstream, so it is fetched through the SSRF guard for
 * user URLs; only image and video answers are passed on.
 */
export async function image(state: RelayState, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { ctx } = state;
  const { id } = req.params as { id: string };
  const { sig } = (req.query ?? {}) as { sig?: unknown };
  if (!ctx.options.bool('MjForwardUrlEnabled') || !validImageSignature(ctx, id, sig))
    throw notFound('image not found');
  const row = (await tasksByMjId(ctx, id)).find((r) => r.image_url);
  if (!row?.image_url) throw notFound('image not found');
  let res: Awaited<ReturnType<typeof guardedFetch>>;
  try {
    res = await guardedFetch(row.image_url, { policy: userUrlPolicy(ctx.options), timeoutMs: 60_000 });
  } catch {
    throw new MjError(502, MjCode.Failure, 'the image could not be fetched');
  }
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !res.body || !/^(image|video)\//i.test(type)) {
    await res.body?.cancel();
    throw new MjError(
      502,
      MjCode.Failure,
      `the image host answered ${res.status}${res.ok ? ` with ${type || 'no type'}` : ''}`,
    );
  }
  reply
    .code(200)
    .header('content-type', type)
    .header('cache-control', isTerminal(row.status) ? 'public, max-age=86400' : 'no-cache');
  const length = res.headers.get('content-length');
  if (length) reply.header('content-length', length);
  await reply.send(Readable.fromWeb(res.body as unknown as WebReadableStream));
}
