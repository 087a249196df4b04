import { Col, DatePicker, Divider, Form, InputNumber, Row, Select, TimePicker } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { QuotaAmountInput } from '../../shared/QuotaAmountInput.tsx';
import { BUDGET_PERIODS, type BudgetInput, type BudgetPeriod, type BudgetView } from './types.ts';

const MAX_DAYS = 3650;

/** The budget part of a token or user form. */
export interface BudgetValues {
  budget_quota: number;
  budget_period?: BudgetPeriod;
  budget_period_days: number;
  budget_reset: Dayjs | null;
}

export const NO_BUDGET: BudgetValues = {
  budget_quota: 0,
  budget_period: undefined,
  budget_period_days: 30,
  budget_reset: null,
};

/** The form's values for a token's or user's stored budget. */
export function budgetFormOf(b: Partial<BudgetView>): BudgetValues {
  const reset = b.budget_reset_time ? dayjs(b.budget_reset_time.replace(' ', 'T')) : null;
  return {
    budget_quota: b.budget_quota ?? 0,
    budget_period: b.budget_period || undefined,
    budget_period_days: b.budget_period_days || NO_BUDGET.budget_period_days,
    budget_reset: reset?.isValid() ? reset : null,
  };
}

/**
 * What the API gets: a daily budget sends its time of day, the others a date and time (the weekday, the day of
 * the month or the first day of a custom period are taken from it). An unset time is left to the server (00:00).
 */
export function budgetBodyOf(v: Partial<BudgetValues>): BudgetInput {
  const period = v.budget_period ?? '';
  const reset = v.budget_reset;
  return {
    budget_quota: v.budget_quota ?? 0,
    budget_period: period,
    budget_period_days: period === 'custom' ? (v.budget_period_days ?? 0) : 0,
    budget_reset_time: reset ? reset.format(period === 'daily' ? 'HH:mm' : 'YYYY-MM-DD HH:mm') : '',
  };
}

/** Amount and period side by side (stacked on a phone), then when it renews. Inside an antd Form. */
export function BudgetFields() {
  const { t } = useTranslation();
  const form = Form.useFormInstance<BudgetValues>();
  const quota = Form.useWatch('budget_quota', form) ?? 0;
  const period = Form.useWatch('budget_period', form);
  const on = Number(quota) > 0;

  const choosePeriod = (p: BudgetPeriod) => {
    if (form.getFieldValue('budget_reset')) return;
    const start = p === 'monthly' ? dayjs().startOf('month') : dayjs().startOf('day');
    form.setFieldsValue({ budget_reset: start });
  };

  return (
    <>
      <Divider titlePlacement="start" plain style={{ marginTop: 4 }}>
        {t('budget.section')}
      </Divider>
      <Row gutter={16}>
        <Col xs={24} sm={14}>
          <Form.Item
            name="budget_quota"
            label={t('budget.amount')}
            extra={t('budget.amountHelp')}
            rules={[{ type: 'integer', min: 0, message: t('token.quotaInvalid') }]}
          >
            <QuotaAmountInput testId="budget-quota" />
          </Form.Item>
        </Col>
        <Col xs={24} sm={10}>
          <Form.Item
            name="budget_period"
            label={t('budget.period')}
            rules={[{ required: on, message: t('budget.periodRequired') }]}
          >
            <Select
              allowClear
              disabled={!on}
              data-testid="budget-period"
              onChange={choosePeriod}
              options={BUDGET_PERIODS.map((p) => ({ value: p, label: t(`budget.${p}`) }))}
            />
          </Form.Item>
        </Col>
      </Row>
      {on && period && (
        <Row gutter={16}>
          <Col xs={24} sm={period === 'custom' ? 14 : 24}>
            <Form.Item
              name="budget_reset"
              label={t('budget.resetTime')}
              extra={t(period === 'daily' ? 'budget.resetHelpDaily' : 'budget.resetHelpOther')}
            >
              {period === 'daily' ? (
                <TimePicker format="HH:mm" style={{ width: '100%' }} placeholder="00:00" />
              ) : (
                <DatePicker
                  showTime={{ format: 'HH:mm' }}
                  format="YYYY-MM-DD HH:mm"
                  style={{ width: '100%' }}
                />
              )}
            </Form.Item>
          </Col>
          {period === 'custom' && (
            <Col xs={24} sm={10}>
              <Form.Item
                name="budget_period_days"
                label={t('budget.days')}
                rules={[
                  {
                    required: true,
                    type: 'integer',
                    min: 1,
                    max: MAX_DAYS,
                    message: t('budget.daysInvalid'),
                  },
                ]}
              >
                <InputNumber min={1} max={MAX_DAYS} precision={0} style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          )}
        </Row>
      )}
    </>
  );
}
