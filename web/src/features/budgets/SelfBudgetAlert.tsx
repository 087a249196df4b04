import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { formatTime } from '../../shared/TimeText.tsx';
import { useSelf } from '../personal/api.ts';
import { usePeriodText } from './BudgetCell.tsx';
import type { BudgetView } from './types.ts';

/** The signed-in user's own periodic budget (set by an administrator), when there is one. */
export function SelfBudgetAlert() {
  const { t } = useTranslation();
  const { format } = useQuotaFormat();
  const periodText = usePeriodText();
  const self = useSelf();
  const b = self.data as Partial<BudgetView> | undefined;
  if (!b?.budget_quota || !b.budget_period) return null;
  const view = b as BudgetView;
  return (
    <Alert
      type={view.budget_used >= view.budget_quota ? 'error' : 'info'}
      showIcon
      style={{ marginBottom: 16 }}
      data-testid="self-budget"
      title={t('budget.self', {
        used: format(view.budget_used),
        quota: format(view.budget_quota),
        period: periodText(view),
        time: formatTime(view.budget_renews_at, 'YYYY-MM-DD HH:mm'),
      })}
    />
  );
}
