import { InputNumber } from 'antd';
import { useEffect, useState } from 'react';

/** A number edited in place: saved on blur or Enter when it changed. */
export function InlineNumber({
  value,
  min,
  onSave,
  ariaLabel,
}: {
  value: number;
  min?: number;
  onSave: (v: number) => void;
  ariaLabel: string;
}) {
  const [draft, setDraft] = useState<number | null>(value);
  useEffect(() => setDraft(value), [value]);
  const commit = () => {
    if (draft === null || draft === value) return setDraft(value);
    const v = min !== undefined && draft < min ? min : Math.trunc(draft);
    setDraft(v);
    if (v !== value) onSave(v);
  };
  return (
    <InputNumber
      size="small"
      style={{ width: 64 }}
      value={draft}
      precision={0}
      aria-label={ariaLabel}
      onChange={(v) => setDraft(v)}
      onBlur={commit}
      onPressEnter={commit}
    />
  );
}
