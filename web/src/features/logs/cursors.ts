import { useRef } from 'react';
import type { LogCursor, LogItem } from './api.ts';

/** How to ask for `page`: by plain page number, or as the n-th page after a row already seen. */
export interface PageRequest {
  p: number;
  cursor?: LogCursor;
}

/**
 * Remembers the last row of every page read under one set of filters and asks for a later page relative to
 * the nearest one before it (keyset paging): deep pages stay fast, and rows logged meanwhile do not shift the
 * pages the reader walks through. A change of filters or page size starts over.
 */
export function useLogCursors(scope: string) {
  const state = useRef<{ scope: string; last: Map<number, LogCursor> }>({ scope, last: new Map() });
  if (state.current.scope !== scope) state.current = { scope, last: new Map() };
  const { last } = state.current;
  return {
    request(page: number): PageRequest {
      for (let known = page - 1; known >= 1; known--) {
        const cursor = last.get(known);
        if (cursor) return { p: page - known, cursor };
      }
      return { p: page };
    },
    remember(page: number, items: LogItem[]) {
      const row = items.at(-1);
      if (row) last.set(page, { before_time: row.created_at, before_id: row.id });
    },
  };
}
