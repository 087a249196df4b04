import type { TFunction } from 'i18next';
import { fmt, type LogOther } from './billing.ts';

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The Details text of a log row in the reader's language, written from the codes and figures the server keeps in
 * the row's `other` (ratios as configured: the figure the billing explanation shows). A row without them (written
 * before the server sent codes, or of a kind the console does not know) shows the text stored with it.
 */
export function logText(
  row: { type: number; content: string; quota: number },
  o: LogOther,
  t: TFunction,
  formatQuota: (quota: number) => string,
): string {
  const amount = formatQuota(Math.abs(row.quota));
  const code = o.content_code;
  if (code === 'consume') return consumeText(o, t);
  if (code === 'task_refund' || (o.refund === true && o.task_id))
    return t('log.text.taskRefund', { task: o.task_id, amount, reason: o.reason ?? '-' });
  if (code === 'redeem' || num(o.redemption_id) !== undefined)
    return t('log.text.redeem', { amount, id: o.redemption_id });
  if (code === 'topup_online' || (o.trade_no && num(o.money) !== undefined))
    return t('log.text.topupOnline', { amount, money: (num(o.money) ?? 0).toFixed(2) });
  if (num(o.aff_quota) !== undefined)
    return t('log.text.affReward', { amount: formatQuota(o.aff_quota as number) });
  if (code === 'response_cache_hit')
    return t('log.text.responseCacheHit', {
      prompt: num(o.saved_prompt_tokens) ?? 0,
      completion: num(o.saved_completion_tokens) ?? 0,
      ratio: fmt(num(o.response_cache_ratio) ?? 0),
      saved: formatQuota(num(o.saved_quota) ?? 0),
    });
  if (code === 'invite_bonus') return t('log.text.inviteBonus', { amount });
  if (code === 'initial_quota') return t('log.text.initialQuota', { amount });
  if (code === 'admin_quota' && num(o.from) !== undefined && num(o.to) !== undefined)
    return t('log.text.adminQuota', {
      admin: o.admin ?? '-',
      from: formatQuota(o.from as number),
      to: formatQuota(o.to as number),
    });
  return row.content;
}

function consumeText(o: LogOther, t: TFunction): string {
  const group = fmt(num(o.group_ratio) ?? 1);
  const price = num(o.model_price) ?? -1;
  const parts = [
    price >= 0
      ? t('log.text.fixed', { price: `$${fmt(price)}`, group })
      : t('log.billing.ratios', {
          model: fmt(num(o.model_ratio) ?? 0),
          completion: fmt(num(o.completion_ratio) ?? 1),
          group,
        }),
  ];
  const chain = o.admin_info?.use_channel ?? [];
  if (chain.length > 1) parts.push(t('log.text.retry', { chain: chain.join(' → ') }));
  if (o.unpriced) parts.push(t('log.text.unpriced'));
  if (o.ws && num(o.audio_ratio) !== undefined)
    parts.push(
      t('log.text.realtime', {
        ratio: fmt(num(o.audio_ratio) ?? 0),
        completion: fmt(num(o.audio_completion_ratio) ?? 0),
      }),
    );
  return parts.join(t('log.text.separator'));
}
