import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../infra/envelope.ts';
import { assertFetchableUrl, userUrlPolicy } from '../../../infra/ssrf.ts';
import type { Hold } from '../../../ledger/balance.ts';
import { authenticate, type Caller, checkAllowedIp } from '../../admit/auth.ts';
import { scrub } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { chargeTask, holdTask, taskPrice } from '../charge.ts';
import { taskFixedLease } from '../route.ts';
import { MJ_FALLBACK_PRICE, MjAction, modelOf } from './actions.ts';
import { planSubmit, type SubmitKind, type SubmitPlan } from './plan.ts';
import { invalid, MjCode, MjError, MjStatus, type SubmitResult } from './protocol.ts';
import { MjRefusal, sendSubmit } from './send.ts';
import { insertTask } from './store.ts';

/** Speed prefixes (`/mj-fast/mj/...`) a client may put before `/mj`. */
export const MODES = new Set(['mj-fast', 'mj-turbo', 'mj-relax']);

/** Whether a body is a plain JSON object. */
const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * One submit: authenticate -> check the body -> hold the fixed price of `mj_<action>` -> forward to a channel
 * (a follow-up to its parent task's channel; the channel's faults are retried on another one up to RetryTimes)
 * -> charge when a proxy took the task (codes 1, 21, 22), release at once when refused -> record the task ->
 * answer with the proxy's own answer.
 */
export async function submit(
  state: RelayState,
  req: FastifyRequest,
  reply: FastifyReply,
  kind: SubmitKind,
  mode: string | undefined,
): Promise<void> {
  const startedAt = performance.now();
  const { ctx } = state;
  const caller = await authenticate(state, req, { mjSecret: true });
  checkAllowedIp(caller.token, req.ip);
  const body = req.body;
  if (!isObject(body)) throw invalid('the request body must be a JSON object');
  const plan = await planSubmit(ctx, caller.user.id, kind, body);
  if (plan.prompt) state.sensitive.check({ prompt: plan.prompt });
  const model = modelOf(plan.action);
  if (!caller.pinned && caller.token?.modelLimits && !caller.token.modelLimits.has(model))
    throw new MjError(403, MjCode.ValidationError, `this API key may not use ${model}`);
  const fixed = taskFixedLease(
    state,
    caller,
    plan.parent?.channel_id,
    () =>
      new MjError(400, MjCode.ValidationError, "the channel of this task's parent is no longer available"),
  );
  const hook = await notifyHookOf(state, body);

  const price = taskPrice(state, caller.group, model, MJ_FALLBACK_PRICE);
  const held = await holdTask(state, caller, price.quota);
  if (typeof held === 'string') {
    const who = held === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new MjError(403, MjCode.ValidationError, `insufficient quota: ${who} is too low for ${model}`);
  }
  const hold: Hold | null = held;
  let sent: Awaited<ReturnType<typeof sendSubmit>>;
  try {
    sent = await sendSubmit(state, { caller, kind, mode, model, fixed, body });
  } catch (err) {
    if (hold) state.ledger.release(hold);
    if (!(err instanceof MjRefusal)) throw err;
    await recordRefusal(state, caller, plan, err.channelId, err.answer.body);
    reply.code(err.answer.status).send(err.answer.body);
    return;
  }

  const { answer, ch } = sent;
  const mjId = typeof answer.result === 'string' ? answer.result : '';
  const now = Date.now();
  const done = doneState(plan.action, answer);
  try {
    await insertTask(ctx, {
      code: answer.code,
      user_id: caller.user.id,
      token_id: caller.token?.id ?? 0,
      group: caller.group,
      action: plan.action,
      mj_id: mjId,
      prompt: plan.prompt,
      prompt_en: '',
      description: scrub(answer.description ?? '', [ch.key, ch.baseUrl]),
      state: typeof body.state === 'string' ? body.state : '',
      submit_time: now,
      start_time: done ? now : 0,
      finish_time: done ? now : 0,
      image_url: done?.imageUrl ?? '',
      status: done
        ? MjStatus.Success
        : answer.code === MjCode.InQueue
          ? MjStatus.NotStart
          : MjStatus.Submitted,
      progress: done ? '100%' : '0%',
      fail_reason: '',
      channel_id: ch.id,
      quota: hold ? price.quota : 0,
      buttons: '',
      properties: '',
      updated_at: now,
      notify_hook: hook,
      video_url: '',
    });
  } catch (err) {
    if (hold) state.ledger.release(hold);
    req.log.error({ err }, 'recording a midjourney task failed');
    throw new MjError(500, MjCode.Failure, `the task was submitted as ${mjId} but could not be recorded`);
  }
  await chargeTask(state, caller, hold, {
    price,
    channelId: ch.id,
    taskId: mjId,
    action: plan.action,
    requestId: req.id,
    ip: req.ip,
    startedAt,
  });
  reply.code(200).send(answer);
}

/** The client's notifyHook, kept for forwarding when MjNotifyEnabled is on; refused when the guard refuses it. */
async function notifyHookOf(state: RelayState, body: Record<string, unknown>): Promise<string> {
  const hook = typeof body.notifyHook === 'string' ? body.notifyHook.trim() : '';
  if (!hook || !state.ctx.options.bool('MjNotifyEnabled')) return '';
  try {
    await assertFetchableUrl(hook, userUrlPolicy(state.ctx.options));
  } catch (err) {
    throw invalid(`notifyHook is not allowed: ${err instanceof ApiError ? err.message : 'invalid URL'}`);
  }
  return hook;
}

/** A task finished by its submit answer: an upload, or `21 exists` for a task that already succeeded. */
function doneState(action: MjAction, a: SubmitResult): { imageUrl: string } | null {
  if (action === MjAction.Upload)
    return { imageUrl: Array.isArray(a.result) ? String(a.result[0] ?? '') : '' };
  if (a.code === MjCode.Existed && a.properties.status === MjStatus.Success)
    return { imageUrl: typeof a.properties.imageUrl === 'string' ? a.properties.imageUrl : '' };
  return null;
}

/** A refused submit stays visible in the drawing log as a failure that cost nothing. */
async function recordRefusal(
  state: RelayState,
  caller: Caller,
  plan: SubmitPlan,
  channelId: number,
  { code, description: reason }: SubmitResult,
): Promise<void> {
  const now = Date.now();
  try {
    await insertTask(state.ctx, {
      code,
      user_id: caller.user.id,
      token_id: caller.token?.id ?? 0,
      group: caller.group,
      action: plan.action,
      mj_id: '',
      prompt: plan.prompt,
      prompt_en: '',
      description: reason,
      state: '',
      submit_time: now,
      start_time: 0,
      finish_time: now,
      image_url: '',
      status: MjStatus.Failure,
      progress: '100%',
      fail_reason: reason,
      channel_id: channelId,
      quota: 0,
      buttons: '',
      properties: '',
      updated_at: now,
      notify_hook: '',
      video_url: '',
    });
  } catch (err) {
    state.ctx.log.error({ err }, 'recording a refused midjourney submit failed');
  }
}
