import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../../api/client.ts';
import { builtInRows } from './effective.ts';

/** The gateway's built-in price tables as editor rows (they price every model the options do not name). */
export function useBuiltInPrices() {
  const q = useQuery({
    queryKey: ['price-defaults'],
    queryFn: () => api.get<Record<string, Record<string, number>>>('/api/pricing/defaults'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const rows = useMemo(() => builtInRows(q.data), [q.data]);
  return { rows, loading: q.isLoading };
}
