import type { QueryClient } from '@tanstack/react-query';
import { type SessionUser, storeUser } from '../../shared/session.ts';

/** After any login: keep the user and drop data cached for the previous visitor (status stays). */
export function startSession(queryClient: QueryClient, user: SessionUser) {
  storeUser(user);
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'status' });
}

export const AFF_KEY = 'aff';
