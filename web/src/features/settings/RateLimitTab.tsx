import { GroupModelRateLimitSection } from '../rate-limits/GroupModelRateLimitSection.tsx';
import type { OptionMap } from './api.ts';
import type { FieldDef } from './fields.ts';
import { OptionSection } from './OptionSection.tsx';
import { checkRateLimitGroups } from './validators.ts';

const FIELDS: FieldDef[] = [
  { key: 'ModelRequestRateLimitEnabled', kind: 'switch', span: 6 },
  { key: 'ModelRequestRateLimitDurationMinutes', kind: 'number', min: 0, span: 6 },
  {
    key: 'ModelRequestRateLimitCount',
    kind: 'number',
    min: 0,
    span: 6,
    help: 'settings.help.ModelRequestRateLimitCount',
  },
  { key: 'ModelRequestRateLimitSuccessCount', kind: 'number', min: 1, span: 6 },
  {
    key: 'ModelRequestRateLimitGroup',
    kind: 'json',
    check: checkRateLimitGroups,
    help: 'settings.help.ModelRequestRateLimitGroup',
    placeholder: '{"default": [200, 100], "vip": [0, 1000]}',
  },
];

/** Per-user model request limits, with per-group overrides, then RPM / TPM by group and model. */
export function RateLimitTab({ options }: { options: OptionMap }) {
  return (
    <>
      <OptionSection title="settings.section.ratelimit" fields={FIELDS} options={options} />
      <GroupModelRateLimitSection options={options} />
    </>
  );
}
