import { type CostProblem, parseCostPrices } from '@modelgate/shared';
import { Button, Form, InputNumber, Typography } from 'antd';
import type { FormInstance } from 'antd/es/form';
import { useTranslation } from 'react-i18next';
import i18n from '../../i18n/index.ts';
import { JsonTextArea } from '../../shared/JsonTextArea.tsx';

/** The channel form's cost fields, kept in the setting JSON as `cost_ratio` and `cost_prices`. */
export interface CostFormValues {
  costRatio?: number | null;
  /** JSON text of `cost_prices`. */
  costPrices?: string;
}

const EXAMPLE = JSON.stringify(
  {
    'gpt-4o': { ratio: 1.25, completion_ratio: 4, cache_ratio: 0.5 },
    mj_imagine: { price: 0.02 },
  },
  null,
  2,
);

/** A shared check's problem in the console's language. */
export const costProblemText = (p: CostProblem) => i18n.t(`cost.problem.${p.code}`, p);

/** The form's values from a channel's setting JSON. */
export function costFormValues(setting: Record<string, unknown>): CostFormValues {
  const ratio = setting.cost_ratio;
  const prices = setting.cost_prices;
  return {
    costRatio: typeof ratio === 'number' ? ratio : null,
    costPrices: prices && typeof prices === 'object' ? JSON.stringify(prices, null, 2) : '',
  };
}

/** The setting keys the form manages (undefined: remove the key), from values that passed the form's rules. */
export function costSettingOf(v: CostFormValues): Record<string, unknown> {
  return {
    cost_ratio: typeof v.costRatio === 'number' ? v.costRatio : undefined,
    cost_prices: parseCostPrices(v.costPrices ?? '').value,
  };
}

/** Upstream price: a multiple of the official price, and per-model prices that win over it. */
export function CostFields({ form }: { form: FormInstance }) {
  const { t } = useTranslation();
  return (
    <>
      <Typography.Title level={5} style={{ marginTop: 8 }}>
        {t('cost.sectionTitle')}
      </Typography.Title>
      <Form.Item name="costRatio" label={t('cost.ratio')} extra={t('cost.ratioHint')}>
        <InputNumber<number>
          min={0}
          step={0.1}
          placeholder="1"
          style={{ width: 160 }}
          data-testid="cost-ratio"
        />
      </Form.Item>
      <Form.Item label={t('cost.prices')} extra={t('cost.pricesHint')}>
        <Form.Item
          name="costPrices"
          noStyle
          validateTrigger={['onChange', 'onBlur']}
          rules={[
            {
              validator: (_, value: string | undefined) => {
                const { problem } = parseCostPrices(value ?? '');
                return problem ? Promise.reject(new Error(costProblemText(problem))) : Promise.resolve();
              },
            },
          ]}
        >
          <JsonTextArea
            inlineError={false}
            autoSize={{ minRows: 2, maxRows: 10 }}
            placeholder={EXAMPLE}
            data-testid="cost-prices"
          />
        </Form.Item>
        <Button
          size="small"
          type="link"
          style={{ paddingLeft: 0 }}
          onClick={() => form.setFieldsValue({ costPrices: EXAMPLE })}
        >
          {t('channel.fillTemplate')}
        </Button>
      </Form.Item>
    </>
  );
}
