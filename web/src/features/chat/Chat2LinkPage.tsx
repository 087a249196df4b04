import { Placeholder } from '../../app/Placeholder.tsx';

/** Placeholder until the feature owner lands the page. */
export default function Chat2LinkPage() {
  return <Placeholder titleKey="nav.chat" />;
}
