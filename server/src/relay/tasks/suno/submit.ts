import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Hold } from '../../../ledger/balance.ts';
import { authenticate, type Caller, checkAllowedIp } from '../../admit/auth.ts';
import { RelayError, scrub } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { runAttempts } from '../../route/attempts.ts';
import { chargeTask, holdTask, taskPrice } from '../charge.ts';
import { taskFixedLease, taskRoute } from '../route.ts';
import { callTaskChannel, type TaskReply } from '../upstream.ts';
import { planSubmit, type SubmitPlan } from './plan.ts';
import {
  invalid,
  modelOf,
  parseAction,
  SUCCESS,
  SUNO_FALLBACK_PRICE,
  type SunoAnswer,
  SunoError,
  SunoStatus,
} from './protocol.ts';
import { sunoAuth } from './refresh.ts';
import { insertTask, PLATFORM } from './store.ts';

/** The proxy answers a submit once Suno took it (lyrics only once they are written). */
const SUBMIT_TIMEOUT_MS = 120_000;

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** 4xx answers that say something about the channel (its key, its address, its load), not the request. */
const CHANNEL_FAULTS = new Set([401, 403, 404, 408, 429]);

/** What the upstream did with a submit: took it (its task id), or refused it (whether another channel may try). */
type Outcome = { taskId: string } | { error: SunoError; retry: boolean };

/**
 * One submit: authenticate -> check the action and body -> hold the fixed price of `suno_<action>` -> forward
 * to a channel (a continuation to its parent task's channel; upstream faults are retried on another channel up
 * to RetryTimes) -> charge once the upstream took the task and it is recorded, release at once otherwise ->
 * answer `{code: "success", data: <task id>}`.
 */
export async function submit(state: RelayState, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const startedAt = performance.now();
  const { ctx } = state;
  const caller = await authenticate(state, req);
  checkAllowedIp(caller.token, req.ip);
  const action = parseAction((req.params as { action: string }).action);
  if (!action) throw invalid('invalid_action');
  if (!isObject(req.body)) throw invalid('the request body must be a JSON object');
  const plan = await planSubmit(ctx, caller.user.id, action, req.body);
  if (plan.prompt) state.sensitive.check({ prompt: plan.prompt });
  const model = modelOf(action);
  if (!caller.pinned && caller.token?.modelLimits && !caller.token.modelLimits.has(model))
    throw new SunoError(403, 'model_not_allowed', `this API key may not use ${model}`);

  const price = taskPrice(state, caller.group, model, SUNO_FALLBACK_PRICE);
  const held = await holdTask(state, caller, price.quota);
  if (typeof held === 'string') {
    const who = held === 'user' ? 'your account balance' : "this API key's remaining quota";
    throw new SunoError(403, 'quota_not_enough', `insufficient quota: ${who} is too low for ${model}`);
  }
  const hold: Hold | null = held;
  let taken: { taskId: string; channelId: number };
  try {
    taken = await sendToChannels(state, caller, plan, model);
    const now = Math.floor(Date.now() / 1000);
    await insertTask(ctx, {
      created_at: now,
      updated_at: now,
      task_id: taken.taskId,
      platform: PLATFORM,
      user_id: caller.user.id,
      token_id: caller.token?.id ?? 0,
      group: caller.group,
      channel_id: taken.channelId,
      quota: hold ? price.quota : 0,
      action,
      status: SunoStatus.NotStart,
      fail_reason: '',
      submit_time: now,
      start_time: 0,
      finish_time: 0,
      progress: '0%',
      properties: JSON.stringify(propertiesOf(plan)),
      data: '',
    }).catch((err) => {
      req.log.error({ err }, 'recording a suno task failed');
      throw new SunoError(
        500,
        'internal_error',
        `the task was submitted as ${taken.taskId} but could not be recorded`,
      );
    });
  } catch (err) {
    if (hold) state.ledger.release(hold);
    throw err;
  }
  await chargeTask(state, caller, hold, {
    price,
    channelId: taken.channelId,
    taskId: taken.taskId,
    action,
    requestId: req.id,
    ip: req.ip,
    startedAt,
  });
  const answer: SunoAnswer<string> = { code: SUCCESS, message: '', data: taken.taskId };
  reply.code(200).send(answer);
}

/** What the task log keeps of the request (the input, never the whole body). */
function propertiesOf(plan: SubmitPlan): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['prompt', 'gpt_description_prompt', 'title', 'tags', 'mv', 'continue_clip_id']) {
    const v = plan.body[k];
    if (typeof v === 'string' && v.trim()) out[k] = v.trim().slice(0, 2000);
  }
  return out;
}

/**
 * An upstream's refusal of a submit, as the attempt loop judges it (by the upstream's own status, so a refused
 * key is disabled like any channel's), with the answer the client gets and whether another channel may try.
 */
class SunoRefusal extends RelayError {
  constructor(
    upstreamStatus: number,
    readonly answer: SunoError,
    readonly retry: boolean,
  ) {
    super(upstreamStatus, answer.message, 'upstream_error', answer.code, null, false);
  }
}

/**
 * Sends the submit to the parent task's channel, the admin's pinned one, or channels chosen by group and model,
 * through the relay's attempt loop: another channel after a fault of the upstream (connection, 5xx, 429, a
 * refused channel key, which is disabled as the relay disables one). A refusal of the request itself is
 * answered at once.
 */
async function sendToChannels(
  state: RelayState,
  caller: Caller,
  plan: SubmitPlan,
  model: string,
): Promise<{ taskId: string; channelId: number }> {
  const fixed = taskFixedLease(
    state,
    caller,
    plan.parent?.channel_id,
    () =>
      new SunoError(400, 'invalid_request', 'the channel of the task being continued is no longer available'),
  );
  try {
    const { result: taskId, ch } = await runAttempts(
      {
        ...taskRoute(state, caller, model, fixed),
        mayRetry: (e) => !(e instanceof SunoRefusal) || e.retry,
        failed: (e, ch) => {
          if (e instanceof SunoRefusal)
            state.ctx.log.warn(
              { channel: ch.id, code: e.answer.code, message: e.answer.message },
              'suno submit refused',
            );
        },
        none: () =>
          new SunoError(
            503,
            'no_available_channel',
            `no available channel for ${model} in group ${caller.group}`,
          ),
      },
      async (ch) => {
        const res = await callTaskChannel(state, ch, {
          method: 'POST',
          path: `/suno/submit/${plan.action}`,
          body: plan.body,
          timeoutMs: SUBMIT_TIMEOUT_MS,
          auth: sunoAuth(ch),
        });
        const outcome = judge(res, [ch.key, ch.baseUrl]);
        if ('taskId' in outcome) return outcome.taskId;
        throw new SunoRefusal(res.status, outcome.error, outcome.retry);
      },
    );
    return { taskId, channelId: ch.id };
  } catch (err) {
    throw err instanceof SunoRefusal ? err.answer : err;
  }
}

/**
 * Reads the proxy's answer to a submit: `{code: "success", data: <task id>}` is a task taken. Anything else is a
 * refusal in the client's protocol with the upstream's code and message (the channel's key and address taken
 * out): a 4xx about the request is the client's to fix; the channel's own faults (5xx, 429, a refused key, an
 * answer that is not the protocol's) may be tried elsewhere and end as a 502 (429 stays 429).
 */
function judge(res: TaskReply, secrets: string[]): Outcome {
  const body = isObject(res.json) ? res.json : null;
  const ok = res.status >= 200 && res.status < 300;
  if (ok && body?.code === SUCCESS && typeof body.data === 'string' && body.data)
    return { taskId: body.data };
  const code =
    typeof body?.code === 'string' && body.code && body.code !== SUCCESS ? body.code : 'upstream_error';
  const said = typeof body?.message === 'string' && body.message ? body.message : res.text.slice(0, 300);
  const message = scrub(said || `the upstream answered status ${res.status}`, secrets);
  const clientFault = res.status >= 400 && res.status < 500 && !CHANNEL_FAULTS.has(res.status);
  const status = clientFault ? res.status : res.status === 429 ? 429 : 502;
  return { error: new SunoError(status, code, message), retry: !clientFault };
}
