import { InputNumber, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from './QuotaText.tsx';

/**
 * A quota field in the unit people read: with currency display on it takes US$ (the `$` before the number)
 * and shows the quota it stores under it; otherwise it takes quota and says so. Its value is always quota
 * (a whole number), so it sits in an antd Form.Item like a plain number field.
 */
export function QuotaAmountInput({
  value,
  onChange,
  id,
  min = 0,
  testId,
}: {
  value?: number | null;
  onChange?: (quota: number | null) => void;
  id?: string;
  min?: number;
  testId?: string;
}) {
  const { t } = useTranslation();
  const { displayInCurrency, toUnits, fromUnits } = useQuotaFormat();
  const quota = value === undefined || value === null ? null : Number(value);
  if (!displayInCurrency)
    return (
      <InputNumber<number>
        id={id}
        data-testid={testId}
        style={{ width: '100%' }}
        min={min}
        precision={0}
        value={quota}
        onChange={(v) => onChange?.(v)}
        suffix={<Typography.Text type="secondary">{t('common.quotaUnit')}</Typography.Text>}
      />
    );
  // The quota goes under the field, not inside it: a long figure would squeeze out what is typed.
  return (
    <>
      <InputNumber<number>
        id={id}
        data-testid={testId}
        style={{ width: '100%' }}
        min={toUnits(min)}
        prefix="$"
        value={quota === null ? null : toUnits(quota)}
        onChange={(v) => onChange?.(v === null ? null : fromUnits(v))}
      />
      <Typography.Text type="secondary" style={{ display: 'block', fontSize: 12, wordBreak: 'break-all' }}>
        {t('common.quotaEquals', { quota: (quota ?? 0).toLocaleString('en-US') })}
      </Typography.Text>
    </>
  );
}
