import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from './copyText.ts';
import { feedback } from './feedback.tsx';
import { type PagedTableProps, usePageSize } from './PagedTable.tsx';

interface KeyRow {
  id: number;
  name: string;
  /** 1 is enabled; a row in any other state is dimmed. */
  status: number;
}

/**
 * What a console list of keys (tokens, redemption codes) keeps: its page and page size, and the rows selected,
 * which `copySelected` copies as `name    key` lines (with `selectFirst` as the error when none is).
 * `tableProps` go to its PagedTable: the paging, the selection, and rows that are not enabled dimmed.
 */
export function useKeyList<T extends KeyRow>({
  keyOf,
  selectFirst,
}: {
  keyOf: (row: T) => string;
  selectFirst: string;
}) {
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<T[]>([]);
  const copySelected = () => {
    if (selected.length === 0) {
      feedback.message?.error(selectFirst);
      return;
    }
    copyText(selected.map((r) => `${r.name}    ${keyOf(r)}`).join('\n'));
  };
  const tableProps: Pick<
    PagedTableProps<T>,
    'page' | 'pageSize' | 'rowSelection' | 'onRow' | 'onPageChange'
  > = {
    page,
    pageSize,
    rowSelection: {
      selectedRowKeys: selected.map((r) => r.id),
      onChange: (_, rows) => setSelected(rows),
    },
    onRow: (r) => ({ style: r.status === 1 ? undefined : { opacity: 0.6 } }),
    onPageChange: (p, size) => {
      setPage(p);
      setPageSize(size);
    },
  };
  return { page, setPage, pageSize, setSelected, copySelected, tableProps };
}

/**
 * A change to one row of the list under the query key `list`: when it succeeds, `done` is shown, `after` runs
 * and the list is read again.
 */
export function useRowChange<T>(
  list: string,
  change: (row: T) => Promise<unknown>,
  done: string,
  after?: () => void,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => {
      feedback.message?.success(done);
      after?.();
      queryClient.invalidateQueries({ queryKey: [list] });
    },
  });
}

/** Enables a row that is not enabled and disables (status 2) one that is; then says so and reads the list again. */
export function useStatusToggle<T extends KeyRow>(
  list: string,
  setStatus: (id: number, status: 1 | 2) => Promise<unknown>,
) {
  const { t } = useTranslation();
  return useRowChange(list, (r: T) => setStatus(r.id, r.status === 1 ? 2 : 1), t('common.operationDone'));
}
