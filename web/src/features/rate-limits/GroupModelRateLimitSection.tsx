import type { OptionMap } from '../settings/api.ts';
import type { FieldDef } from '../settings/fields.ts';
import { OptionSection } from '../settings/OptionSection.tsx';
import { checkGroupModelRateLimit } from './validators.ts';

const FIELDS: FieldDef[] = [
  {
    key: 'GroupModelRateLimit',
    kind: 'json',
    label: 'rateLimits.option',
    help: 'rateLimits.optionHelp',
    check: checkGroupModelRateLimit,
    placeholder:
      '{"default": {"*": {"rpm": 60, "tpm": 100000}}, "vip": {"gpt-4o": {"tpm": 30000, "scope": "group"}}}',
  },
];

/** Requests and tokens per minute by group and model (the option GroupModelRateLimit). */
export function GroupModelRateLimitSection({ options }: { options: OptionMap }) {
  return <OptionSection title="rateLimits.section" fields={FIELDS} options={options} />;
}
