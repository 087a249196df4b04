import { Card, Tabs } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionMap } from '../api.ts';
import { JsonPrices } from './JsonPrices.tsx';
import { UnsetModels } from './UnsetModels.tsx';
import { VisualEditor } from './VisualEditor.tsx';

const SUB_TABS = ['model', 'visual', 'unset_models'] as const;

/** Model pricing: the JSON options, a visual table editor, and the models that have no price yet. */
export function PricingEditor({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const [tab, setTab] = useState<string>('model');
  return (
    <Card title={t('settings.section.pricing')} size="small" style={{ marginBottom: 16 }}>
      <Tabs
        activeKey={tab}
        onChange={setTab}
        destroyOnHidden
        items={SUB_TABS.map((key) => ({
          key,
          label: t(`settings.pricing.tab.${key}`),
          children:
            key === 'model' ? (
              <JsonPrices options={options} />
            ) : key === 'visual' ? (
              <VisualEditor options={options} />
            ) : (
              <UnsetModels options={options} />
            ),
        }))}
      />
    </Card>
  );
}
