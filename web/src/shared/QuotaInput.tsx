import { Button, Space } from 'antd';
import { QuotaAmountInput } from './QuotaAmountInput.tsx';
import { useQuotaFormat } from './QuotaText.tsx';

/** Quota presets for tokens and redemption codes ($1, $10, $50, $100, $500, $1000 at 500000/$). */
export const QUOTA_PRESETS = [500_000, 5_000_000, 25_000_000, 50_000_000, 250_000_000, 500_000_000];

/**
 * A quota field in the display currency (see QuotaAmountInput) with one-click presets.
 * Works inside an antd Form.Item (value/onChange).
 */
export function QuotaInput({
  value,
  onChange,
  presets = QUOTA_PRESETS,
  id,
}: {
  value?: number | null;
  onChange?: (v: number | null) => void;
  presets?: number[];
  id?: string;
}) {
  const { quotaPerUnit, displayInCurrency, toUnits, abbreviate } = useQuotaFormat();
  // Presets are round amounts: `$10`, not `$10.00`.
  const label = (q: number) =>
    displayInCurrency ? `$${Number.parseFloat(toUnits(q).toFixed(6))}` : abbreviate(q);
  // Presets are defined at the default 500000 quota per dollar; keep their dollar meaning when it differs.
  const scaled = presets.map((p) => Math.round((p / 500_000) * quotaPerUnit));
  return (
    <Space direction="vertical" style={{ width: '100%' }} size={6}>
      <QuotaAmountInput id={id} min={1} value={value} onChange={onChange} />
      <Space wrap size={[6, 6]}>
        {scaled.map((q) => (
          <Button
            key={q}
            size="small"
            type={value === q ? 'primary' : 'default'}
            onClick={() => onChange?.(q)}
          >
            {label(q)}
          </Button>
        ))}
      </Space>
    </Space>
  );
}
