import { LogType } from '@modelgate/shared';
import type { Hold, HoldRefusal } from '../../ledger/balance.ts';
import type { Caller } from '../admit/auth.ts';
import { costSettings } from '../billing/channel-cost.ts';
import { productQuota } from '../billing/quota.ts';
import type { RelayState } from '../relay-state.ts';
import { callerSubject, chargeOf, usageLogRow } from '../settle/usage-log.ts';

/** What one task submit costs: a fixed US$ price per call times the group ratio, in quota. */
export interface TaskPrice {
  model: string;
  modelPrice: number;
  groupRatio: number;
  quota: number;
}

/**
 * The price of an asynchronous task (Midjourney action, Suno song): the model's per-call price from the
 * ModelPrice option or the built-in table, else `fallbackUsd`; times QuotaPerUnit and the group ratio, rounded.
 */
export function taskPrice(state: RelayState, group: string, model: string, fallbackUsd: number): TaskPrice {
  const known = state.prices.model(model);
  const modelPrice = known && known.modelPrice >= 0 ? known.modelPrice : fallbackUsd;
  const groupRatio = state.prices.groupRatio(group);
  const qpu = state.ctx.options.float('QuotaPerUnit');
  return { model, modelPrice, groupRatio, quota: productQuota([modelPrice, qpu, groupRatio]) };
}

/**
 * What one task costs upstream, in quota: the channel's own per-call price for the model (`cost_prices`), else
 * the task's per-call price x the channel's cost ratio. 0 when the channel is gone.
 */
export function taskCost(state: RelayState, channelId: number, model: string, modelPrice: number): number {
  const ch = state.channels.get(channelId);
  if (!ch) return 0;
  const settings = costSettings(ch);
  const own = settings.models.get(model)?.price;
  const qpu = state.ctx.options.float('QuotaPerUnit');
  return own !== undefined ? productQuota([own, qpu]) : productQuota([modelPrice, qpu, settings.ratio]);
}

/**
 * Reserves a task's price on the caller's user and token before the upstream sees the submit: null for a free
 * task, a refusal naming the account that is short, or the hold to settle (upstream took it) or release.
 */
export async function holdTask(
  state: RelayState,
  caller: Caller,
  quota: number,
): Promise<Hold | HoldRefusal | null> {
  if (quota <= 0) return null;
  return state.ledger.hold(
    caller.user.balance,
    caller.token?.balance,
    { need: quota, amount: quota },
    caller.token?.unlimited ?? true,
  );
}

export interface TaskChargeFacts {
  price: TaskPrice;
  channelId: number;
  /** The upstream's task id, named in the log line. */
  taskId: string;
  /** The action as the platform names it (IMAGINE, MUSIC, ...). */
  action: string;
  requestId: string;
  ip: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
}

/**
 * Turns the hold into the charge once the upstream has taken the task: the ledger's writer moves the user's,
 * token's and channel's counters and writes the consume log row in its next batch.
 */
export async function chargeTask(
  state: RelayState,
  caller: Caller,
  hold: Hold | null,
  f: TaskChargeFacts,
): Promise<void> {
  const { ctx } = state;
  if (!hold || f.price.quota <= 0) return;
  const before = caller.user.balance.available + hold.amount;
  const quota = await state.writer.track(state.ledger.settle(hold, f.price.quota));
  if (quota === null) return;
  const useMs = performance.now() - f.startedAt;
  const content = `模型固定价格 ${f.price.modelPrice.toFixed(2)}，分组倍率 ${f.price.groupRatio.toFixed(2)}，操作 ${f.action}${f.taskId ? `，ID ${f.taskId}` : ''}`;
  const outcome = {
    type: LogType.Consume,
    content,
    other: {
      model_price: f.price.modelPrice,
      group_ratio: f.price.groupRatio,
      task_id: f.taskId,
      action: f.action,
      use_time: Math.round(useMs),
      request_id: f.requestId,
      admin_info: { use_channel: [String(f.channelId)] },
    },
    channelId: f.channelId,
    quota,
    cost: taskCost(state, f.channelId, f.price.model, f.price.modelPrice),
    useTime: Math.round(useMs / 1000),
  };
  const subject = callerSubject(caller, f.price.model, false, f.ip, f.requestId);
  const log = ctx.options.bool('LogConsumeEnabled') ? usageLogRow(subject, outcome) : undefined;
  state.writer.push(chargeOf(caller, outcome, true, log));
  state.notifier.afterCharge(caller.user, before, caller.user.balance.available);
}
