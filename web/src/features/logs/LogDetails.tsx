import { Descriptions, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import type { LogItem } from './api.ts';
import { explainBilling, parseOther } from './billing.ts';
import { logText } from './logText.ts';

/** The expanded row: everything the row's `other` says, and how the charge was computed. */
export function LogDetails({ row, admin }: { row: LogItem; admin: boolean }) {
  const { t } = useTranslation();
  const { quotaPerUnit, format } = useQuotaFormat();
  const o = parseOther(row.other);
  const chain = o.admin_info?.use_channel ?? [];
  const consume = row.type === 2;
  const items = [
    admin && row.channel
      ? {
          key: 'ch',
          label: t('log.colChannel'),
          children: t('log.channelInfo', { id: row.channel, name: row.channel_name || '-' }),
        }
      : null,
    admin && consume && row.cost !== undefined
      ? {
          key: 'cost',
          label: t('cost.logCost'),
          children: t('cost.logCostValue', { cost: format(row.cost), margin: format(row.quota - row.cost) }),
        }
      : null,
    o.is_model_mapped
      ? {
          key: 'map',
          label: t('log.colModel'),
          children: t('log.mapped', { model: row.model_name, actual: o.upstream_model_name ?? '' }),
        }
      : null,
    o.cache_tokens ? { key: 'cache', label: t('log.cacheTokens'), children: o.cache_tokens } : null,
    o.cache_creation_tokens || o.cache_creation_tokens_1h
      ? {
          key: 'cc',
          label: t('log.cacheCreationTokens'),
          children: o.cache_creation_tokens_1h
            ? `${o.cache_creation_tokens ?? 0} + ${o.cache_creation_tokens_1h} (1h)`
            : o.cache_creation_tokens,
        }
      : null,
    o.reasoning_tokens ? { key: 'rt', label: t('log.reasoningTokens'), children: o.reasoning_tokens } : null,
    o.reasoning_effort ? { key: 're', label: t('log.reasoningEffort'), children: o.reasoning_effort } : null,
    admin && chain.length > 1
      ? { key: 'retry', label: t('log.colRetry'), children: chain.join(' → ') }
      : null,
    row.request_id
      ? {
          key: 'rid',
          label: t('log.requestId'),
          children: <Typography.Text copyable>{row.request_id}</Typography.Text>,
        }
      : null,
    admin && row.ip ? { key: 'ip', label: t('log.colIp'), children: row.ip } : null,
    row.content || o.content_code
      ? { key: 'content', label: t('log.colDetails'), children: logText(row, o, t, format) }
      : null,
    consume
      ? {
          key: 'billing',
          label: t('log.billingTitle'),
          children: (
            <div data-testid="log-billing">
              {explainBilling(o, row, quotaPerUnit).map((line) => (
                <div key={line.key}>{t(`log.billing.${line.key}`, line.values)}</div>
              ))}
            </div>
          ),
        }
      : null,
  ].filter((x): x is NonNullable<typeof x> => x !== null);
  return <Descriptions size="small" column={1} bordered items={items} />;
}
