import { Spin, Tabs } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { GuardrailsTab } from '../guardrails/GuardrailsTab.tsx';
import { useOptions } from './api.ts';
import { ModelsTab } from './ModelsTab.tsx';
import { OtherTab } from './OtherTab.tsx';
import { OperationTab } from './operation/OperationTab.tsx';
import { RateLimitTab } from './RateLimitTab.tsx';
import { SystemTab } from './system/SystemTab.tsx';

const TABS = ['operation', 'ratelimit', 'models', 'guardrails', 'system', 'other'] as const;
type Tab = (typeof TABS)[number];

/** /setting?tab=operation|ratelimit|models|guardrails|system|other; an unknown tab shows operation. */
export default function SettingsPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const tab: Tab = (TABS as readonly string[]).includes(requested ?? '') ? (requested as Tab) : 'operation';
  const { data: options, isLoading } = useOptions();

  useEffect(() => {
    if (requested !== tab) setParams((p) => ({ ...Object.fromEntries(p), tab }), { replace: true });
  }, [requested, tab, setParams]);

  const body = (key: Tab) => {
    if (!options) return <Spin style={{ display: 'block', margin: 48 }} spinning={isLoading} />;
    switch (key) {
      case 'operation':
        return <OperationTab options={options} />;
      case 'ratelimit':
        return <RateLimitTab options={options} />;
      case 'models':
        return <ModelsTab options={options} />;
      case 'guardrails':
        return <GuardrailsTab options={options} />;
      case 'system':
        return <SystemTab options={options} />;
      default:
        return <OtherTab options={options} />;
    }
  };

  return (
    <Tabs
      activeKey={tab}
      destroyOnHidden
      onChange={(key) => setParams({ tab: key })}
      items={TABS.map((key) => ({ key, label: t(`settings.tab.${key}`), children: body(key) }))}
    />
  );
}
