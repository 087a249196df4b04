import { Placeholder } from '../../app/Placeholder.tsx';

/** Placeholder until the feature owner lands the page. */
export default function RegisterPage() {
  return <Placeholder titleKey="header.register" />;
}
