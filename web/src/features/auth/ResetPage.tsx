import { Placeholder } from '../../app/Placeholder.tsx';

/** Placeholder until the feature owner lands the page. */
export default function ResetPage() {
  return <Placeholder titleKey="header.login" />;
}
