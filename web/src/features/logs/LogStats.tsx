import { Skeleton, Space, Tag } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import type { LogStat } from './api.ts';

/**
 * The summary tags above the table: quota used under the filters, requests and tokens in the last minute, and
 * `extra` after them (the admin's cost and margin).
 */
export function LogStats({ stat, loading, extra }: { stat?: LogStat; loading: boolean; extra?: ReactNode }) {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  if (loading && !stat)
    return <Skeleton.Input active size="small" style={{ width: 320, marginBottom: 12 }} />;
  return (
    <Space wrap size={[8, 8]} style={{ marginBottom: 12 }} data-testid="log-stats">
      <Tag color="blue" style={{ fontSize: 14, padding: '4px 8px' }}>
        {t('log.statQuota', { quota: format(stat?.quota ?? 0) })}
      </Tag>
      <Tag color="pink" style={{ fontSize: 14, padding: '4px 8px' }}>
        {t('log.statRpm', { n: stat?.rpm ?? 0 })}
      </Tag>
      <Tag color="purple" style={{ fontSize: 14, padding: '4px 8px' }}>
        {t('log.statTpm', { n: stat?.tpm ?? 0 })}
      </Tag>
      {extra}
    </Space>
  );
}
