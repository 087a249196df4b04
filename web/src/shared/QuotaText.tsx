import { abbreviateQuota, renderQuota } from '@modelgate/shared';
import { useCallback } from 'react';
import { quotaPerUnitOf, useStatus } from './status.ts';

/**
 * Formats quota with the one shared formatter: with currency display on, `$` and
 * quota / quota_per_unit (two decimals from $1, enough significant digits below, never $0.00 for a real
 * amount); otherwise abbreviated (k from 10000, M, B).
 */
export function useQuotaFormat() {
  const { status } = useStatus();
  const quotaPerUnit = quotaPerUnitOf(status);
  const displayInCurrency = status.display_in_currency !== false;
  const format = useCallback(
    (quota: number) => renderQuota(Number(quota) || 0, { quotaPerUnit, displayInCurrency }),
    [quotaPerUnit, displayInCurrency],
  );
  /** Quota -> US$ amount (number), and back; for inputs that take dollars. */
  const toUnits = useCallback((quota: number) => quota / quotaPerUnit, [quotaPerUnit]);
  const fromUnits = useCallback((units: number) => Math.round(units * quotaPerUnit), [quotaPerUnit]);
  return { format, quotaPerUnit, displayInCurrency, toUnits, fromUnits, abbreviate: abbreviateQuota };
}

/** Quota as text (see useQuotaFormat), the raw quota in its tooltip. */
export function QuotaText({ quota }: { quota: number }) {
  const { format } = useQuotaFormat();
  return <span title={String(quota)}>{format(quota)}</span>;
}
