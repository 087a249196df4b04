import { Placeholder } from '../../app/Placeholder.tsx';

/** Placeholder until the feature owner lands the page. */
export default function TasksPage() {
  return <Placeholder titleKey="nav.tasks" />;
}
