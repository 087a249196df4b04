import type { OptionMap } from '../settings/api.ts';
import { AssignmentsSection } from './AssignmentsSection.tsx';
import { PoliciesSection } from './PoliciesSection.tsx';

/** Settings, Guardrails: the policies and which groups and tokens are under them. */
export function GuardrailsTab({ options }: { options: OptionMap }) {
  return (
    <div className="guardrails-tab">
      <PoliciesSection options={options} />
      <AssignmentsSection options={options} />
    </div>
  );
}
