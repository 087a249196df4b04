import {
  BREAKER_OPTIONS,
  type BreakerOptionKey,
  type RetentionOptionKey,
  retentionOptionProblem,
} from '@modelgate/shared';
import type { OptionMap } from '../api.ts';
import type { FieldDef } from '../fields.ts';
import { OptionSection } from '../OptionSection.tsx';
import { PricingEditor } from '../pricing/PricingEditor.tsx';
import { checkGroupRatio, checkGroupRoutingMode } from '../validators.ts';
import { LogCleanup } from './LogCleanup.tsx';

const sw = (key: string): FieldDef => ({ key, kind: 'switch' });
const num = (key: string, min = 0): FieldDef => ({ key, kind: 'number', min });

const GENERAL: FieldDef[] = [
  { key: 'TopUpLink', kind: 'text', placeholder: 'https://' },
  { key: 'general_setting.docs_link', kind: 'text', placeholder: 'https://' },
  { key: 'QuotaPerUnit', kind: 'number', min: 1, float: true, help: 'settings.help.QuotaPerUnit' },
  num('RetryTimes'),
  sw('DisplayInCurrencyEnabled'),
  sw('DisplayTokenStatEnabled'),
  sw('DefaultCollapseSidebar'),
  sw('DemoSiteEnabled'),
  sw('SelfUseModeEnabled'),
];
const DRAWING: FieldDef[] = [
  'DrawingEnabled',
  'MjNotifyEnabled',
  'MjAccountFilterEnabled',
  'MjForwardUrlEnabled',
  'MjModeClearEnabled',
  'MjActionCheckSuccessEnabled',
].map(sw);
const SENSITIVE: FieldDef[] = [
  sw('CheckSensitiveEnabled'),
  sw('CheckSensitiveOnPromptEnabled'),
  { key: 'SensitiveWords', kind: 'textarea', help: 'settings.help.SensitiveWords' },
];
/** Days to keep; no min/max on the input, so a value out of range is shown as refused instead of clamped. */
const retention = (key: RetentionOptionKey): FieldDef => ({
  key,
  kind: 'number',
  help: `settings.help.${key}`,
  check: (v) =>
    v === undefined || v === null || retentionOptionProblem(key, Number(v))
      ? 'settings.error.retentionDays'
      : undefined,
});
const LOGS: FieldDef[] = [
  sw('LogConsumeEnabled'),
  retention('LogRetentionDays'),
  retention('TaskRetentionDays'),
  retention('AuditLogRetentionDays'),
];
const DASHBOARD: FieldDef[] = [
  sw('DataExportEnabled'),
  num('DataExportInterval', 1),
  {
    key: 'DataExportDefaultTime',
    kind: 'select',
    choices: ['hour', 'day', 'week'].map((v) => ({ value: v, label: `settings.granularity.${v}` })),
  },
];
const MONITORING: FieldDef[] = [
  { ...num('ChannelDisableThreshold'), float: true },
  num('QuotaRemindThreshold'),
  sw('AutomaticDisableChannelEnabled'),
  sw('AutomaticEnableChannelEnabled'),
  { key: 'AutomaticDisableKeywords', kind: 'textarea', help: 'settings.help.AutomaticDisableKeywords' },
  { ...num('ChannelCompatCheckInterval'), help: 'settings.help.ChannelCompatCheckInterval' },
];
const QUOTA: FieldDef[] = ['QuotaForNewUser', 'PreConsumedQuota', 'QuotaForInviter', 'QuotaForInvitee'].map(
  (k) => ({ ...num(k), span: 6 }),
);
const CHATS: FieldDef[] = [{ key: 'Chats', kind: 'json', help: 'settings.help.Chats' }];
const GROUPS: FieldDef[] = [
  { key: 'GroupRatio', kind: 'json', span: 12, check: checkGroupRatio, help: 'settings.help.GroupRatio' },
  { key: 'UserUsableGroups', kind: 'json', span: 12, help: 'settings.help.UserUsableGroups' },
  {
    key: 'GroupRoutingMode',
    kind: 'json',
    check: checkGroupRoutingMode,
    help: 'settings.help.GroupRoutingMode',
    placeholder: '{"vip": "round_robin"}',
  },
];
const breaker = (key: BreakerOptionKey): FieldDef => {
  const r = BREAKER_OPTIONS[key];
  return {
    key,
    kind: 'number',
    min: r.min,
    max: r.max,
    float: !r.integer,
    step: r.integer ? 1 : 0.05,
    help: `settings.help.${key}`,
  };
};
const BREAKER: FieldDef[] = (Object.keys(BREAKER_OPTIONS) as BreakerOptionKey[]).map(breaker);

/** The operation tab: general, drawing, sensitive words, logs, dashboard, monitoring, quota, chats, groups, pricing. */
export function OperationTab({ options }: { options: OptionMap }) {
  return (
    <>
      <OptionSection title="settings.section.general" fields={GENERAL} options={options} />
      <OptionSection title="settings.section.drawing" fields={DRAWING} options={options} />
      <OptionSection title="settings.section.sensitive" fields={SENSITIVE} options={options} />
      <OptionSection title="settings.section.logs" fields={LOGS} options={options}>
        {() => <LogCleanup />}
      </OptionSection>
      <OptionSection title="settings.section.dashboard" fields={DASHBOARD} options={options} />
      <OptionSection title="settings.section.monitoring" fields={MONITORING} options={options} />
      <OptionSection title="settings.section.breaker" fields={BREAKER} options={options} />
      <OptionSection title="settings.section.quota" fields={QUOTA} options={options} />
      <OptionSection title="settings.section.chats" fields={CHATS} options={options} />
      <OptionSection title="settings.section.groups" fields={GROUPS} options={options} />
      <PricingEditor options={options} />
    </>
  );
}
