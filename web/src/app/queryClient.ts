import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiFailure } from '../api/client.ts';
import { showError } from '../shared/feedback.tsx';

/**
 * Failed queries and mutations show the error catalogue's text once, here; a caller that shows its own
 * message sets `meta: { silent: true }`. Only network failures and 5xx are retried (once).
 */
export function createQueryClient() {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (err, query) => {
        if (!query.meta?.silent) showError(err);
      },
    }),
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        if (!mutation.meta?.silent) showError(err);
      },
    }),
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: false,
        retry: (count, err) =>
          count < 1 && err instanceof ApiFailure && (err.status === 0 || err.status >= 500),
      },
    },
  });
}
