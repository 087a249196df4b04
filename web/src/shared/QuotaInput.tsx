import { Button, InputNumber, Space, Typography } from 'antd';
import { useQuotaFormat } from './QuotaText.tsx';

/** Spec 001 §9: quota presets for tokens and redemption codes ($1, $10, $50, $100, $500, $1000 at 500000/$). */
export const QUOTA_PRESETS = [500_000, 5_000_000, 25_000_000, 50_000_000, 250_000_000, 500_000_000];

/**
 * A whole-number quota field with one-click presets and the equivalent amount beside it.
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
  const { format, quotaPerUnit } = useQuotaFormat();
  // Presets are defined at the default 500000 quota per dollar; keep their dollar meaning when it differs.
  const scaled = presets.map((p) => Math.round((p / 500_000) * quotaPerUnit));
  return (
    <Space direction="vertical" style={{ width: '100%' }} size={6}>
      <InputNumber<number>
        id={id}
        style={{ width: '100%' }}
        min={1}
        step={1}
        precision={0}
        value={value ?? null}
        onChange={(v) => onChange?.(v)}
        suffix={<Typography.Text type="secondary">{format(Number(value) || 0)}</Typography.Text>}
      />
      <Space wrap size={[6, 6]}>
        {scaled.map((q) => (
          <Button
            key={q}
            size="small"
            type={value === q ? 'primary' : 'default'}
            onClick={() => onChange?.(q)}
          >
            {format(q, 0)}
          </Button>
        ))}
      </Space>
    </Space>
  );
}
