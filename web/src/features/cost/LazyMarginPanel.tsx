import { Card, Spin } from 'antd';
import { lazy, Suspense } from 'react';
import type { MarginFilter } from './api.ts';

// Loaded only where an admin opens it: users never fetch the panel's code (echarts itself is shared with the
// dashboard's own charts).
const MarginPanel = lazy(() => import('./MarginPanel.tsx').then((m) => ({ default: m.MarginPanel })));

/** The margin panel, fetched on first render. */
export function LazyMarginPanel({ filter }: { filter: MarginFilter }) {
  return (
    <Suspense
      fallback={
        <Card size="small">
          <Spin />
        </Card>
      }
    >
      <MarginPanel filter={filter} />
    </Suspense>
  );
}
