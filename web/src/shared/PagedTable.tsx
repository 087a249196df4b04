import { Table, type TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocalSetting } from './storage.ts';
import { useIsMobile } from './useIsMobile.ts';

export const PAGE_SIZES = [10, 20, 50, 100];
export const DEFAULT_PAGE_SIZE = 10;

/** The page size every table shares, remembered under `page-size`. */
export function usePageSize(): [number, (size: number) => void] {
  const [size, setSize] = useLocalSetting<number>('page-size', DEFAULT_PAGE_SIZE);
  return [PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE, setSize];
}

export interface PagedTableProps<T> extends Omit<TableProps<T>, 'pagination'> {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  /** Total rows; leave undefined for lists that only say whether a page came back full. */
  total?: number;
  onPageChange: (page: number, pageSize: number) => void;
}

/**
 * An antd Table with server-side paging and the shared page-size choices (10/20/50/100). The size the user
 * picks is stored for every table. Without `total`, a full page offers one more page.
 */
export function PagedTable<T extends object>({
  page,
  pageSize,
  total,
  onPageChange,
  scroll,
  ...rest
}: PagedTableProps<T>) {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const [, rememberSize] = usePageSize();
  const rows = rest.dataSource?.length ?? 0;
  const knownTotal = total ?? (page - 1) * pageSize + rows + (rows >= pageSize ? 1 : 0);
  return (
    <Table<T>
      size={isMobile ? 'small' : 'middle'}
      scroll={scroll ?? { x: 'max-content' }}
      {...rest}
      pagination={{
        current: page,
        pageSize,
        total: knownTotal,
        pageSizeOptions: PAGE_SIZES,
        showSizeChanger: true,
        showTotal: total === undefined || isMobile ? undefined : (n) => t('common.total', { total: n }),
        simple: isMobile,
        onChange: (nextPage, nextSize) => {
          if (nextSize !== pageSize) {
            rememberSize(nextSize);
            onPageChange(1, nextSize);
          } else onPageChange(nextPage, nextSize);
        },
      }}
    />
  );
}
