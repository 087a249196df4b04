import { Progress, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { formatTime } from '../../shared/TimeText.tsx';
import type { BudgetView } from './types.ts';

/** "daily", "every 10 days": how often a budget renews. */
export function usePeriodText() {
  const { t } = useTranslation();
  return (b: Pick<BudgetView, 'budget_period' | 'budget_period_days'>) =>
    t(`budget.per.${b.budget_period}`, { days: b.budget_period_days, defaultValue: b.budget_period });
}

/** A renewal this year without its year (the tooltip has it); a later one (a long custom period) with it. */
const renewalFormat = (sec: number) =>
  new Date(sec * 1000).getFullYear() === new Date().getFullYear() ? 'MM-DD HH:mm' : 'YYYY-MM-DD HH:mm';

/**
 * A budget in a list, compact: a thin bar of what is spent, "12.30 / 50.00 · daily" and when it renews (the
 * full time on hover). A dash without a budget.
 */
export function BudgetCell({ budget }: { budget: BudgetView }) {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  const periodText = usePeriodText();
  if (!budget.budget_quota) return <Typography.Text type="secondary">-</Typography.Text>;
  const spent = Math.min(budget.budget_used, budget.budget_quota);
  const percent = Math.round((spent / budget.budget_quota) * 100);
  return (
    <div style={{ minWidth: 130 }} data-testid="budget-cell">
      <Progress
        percent={percent}
        size="small"
        showInfo={false}
        status={budget.budget_used >= budget.budget_quota ? 'exception' : 'normal'}
        style={{ margin: 0 }}
      />
      <div style={{ fontSize: 12, lineHeight: 1.4, whiteSpace: 'nowrap' }}>
        {format(budget.budget_used)} / {format(budget.budget_quota)} · {periodText(budget)}
      </div>
      <Tooltip title={formatTime(budget.budget_renews_at, 'YYYY-MM-DD HH:mm')}>
        <Typography.Text type="secondary" style={{ fontSize: 12, whiteSpace: 'nowrap' }}>
          {t('budget.renews', {
            time: formatTime(budget.budget_renews_at, renewalFormat(budget.budget_renews_at)),
          })}
        </Typography.Text>
      </Tooltip>
    </div>
  );
}
