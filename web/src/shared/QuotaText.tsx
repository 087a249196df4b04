import { abbreviateQuota, renderQuota } from '@modelgate/shared';
import { useCallback } from 'react';
import { quotaPerUnitOf, useStatus } from './status.ts';

/**
 * Formats quota by spec 000 §9: with currency display on, `$` and quota / quota_per_unit to 2 decimals;
 * otherwise abbreviated (k from 10000, M, B).
 */
export function useQuotaFormat() {
  const { status } = useStatus();
  const quotaPerUnit = quotaPerUnitOf(status);
  const displayInCurrency = status.display_in_currency !== false;
  const format = useCallback(
    (quota: number, digits = 2) =>
      renderQuota(Number(quota) || 0, { quotaPerUnit, displayInCurrency, digits }),
    [quotaPerUnit, displayInCurrency],
  );
  /** Quota -> US$ amount (number), and back; for inputs that take dollars. */
  const toUnits = useCallback((quota: number) => quota / quotaPerUnit, [quotaPerUnit]);
  const fromUnits = useCallback((units: number) => Math.round(units * quotaPerUnit), [quotaPerUnit]);
  return { format, quotaPerUnit, displayInCurrency, toUnits, fromUnits, abbreviate: abbreviateQuota };
}

export function QuotaText({ quota, digits }: { quota: number; digits?: number }) {
  const { format } = useQuotaFormat();
  return <span title={String(quota)}>{format(quota, digits)}</span>;
}
