import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ColumnSettingsButton, useColumnSettings } from '../../shared/ColumnSettings.tsx';
import { PagedTable, usePageSize } from '../../shared/PagedTable.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useSession } from '../../shared/session.ts';
import { MarginStats } from '../cost/MarginStats.tsx';
import { type LogFilters, type LogItem, listLogs, logStat } from './api.ts';
import { logColumns } from './columns.tsx';
import { useLogCursors } from './cursors.ts';
import { LogDetails } from './LogDetails.tsx';
import { defaultFilters, LogFilterForm } from './LogFilterForm.tsx';
import { LogStats } from './LogStats.tsx';
import { UserInfoModal } from './UserInfoModal.tsx';

/** Usage log: admins read every row through the admin endpoints, users their own. */
export default function LogsPage() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const { format } = useQuotaFormat();
  const [filters, setFilters] = useState<LogFilters>(defaultFilters);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = usePageSize();
  const [userInfo, setUserInfo] = useState<number>();

  const cursors = useLogCursors(JSON.stringify([isAdmin, filters, pageSize]));

  const list = useQuery({
    queryKey: ['logs', isAdmin, filters, page, pageSize],
    queryFn: async () => {
      const { p, cursor } = cursors.request(page);
      const res = await listLogs(isAdmin, filters, p, pageSize, cursor);
      cursors.remember(page, res.items);
      return res;
    },
    placeholderData: keepPreviousData,
  });
  const stat = useQuery({
    queryKey: ['log-stat', isAdmin, filters],
    queryFn: () => logStat(isAdmin, filters),
  });

  const all = useMemo(
    () => logColumns({ t, admin: isAdmin, formatQuota: format, onUser: setUserInfo }),
    [t, isAdmin, format],
  );
  const settings = useColumnSettings(
    'logs-table-columns',
    all.map((c) => ({ key: c.key, title: String(c.title) })),
  );
  const data = list.data;
  // Above the count's cap a full page offers the next one, so the reader can go on past 10,000 rows.
  const total =
    data?.total_capped && data.items.length === pageSize
      ? Math.max(data.total, page * pageSize + 1)
      : (data?.total ?? 0);

  return (
    <Card title={t('log.title')} extra={<ColumnSettingsButton settings={settings} />}>
      <LogStats
        stat={stat.data}
        loading={stat.isLoading}
        extra={isAdmin ? <MarginStats filter={filters} /> : undefined}
      />
      <LogFilterForm
        admin={isAdmin}
        value={filters}
        onSearch={(f) => {
          setFilters(f);
          setPage(1);
        }}
      />
      <PagedTable<LogItem>
        rowKey="id"
        columns={settings.filter(all)}
        dataSource={data?.items ?? []}
        loading={list.isFetching}
        page={page}
        pageSize={pageSize}
        total={total}
        expandable={{
          expandedRowRender: (r) => <LogDetails row={r} admin={isAdmin} />,
          expandRowByClick: true,
          // A fixed expand column makes the table draw an opened row at the visible width, not the scrolled
          // table's: on a phone the details (the cost among them) are readable without scrolling sideways.
          fixed: 'left',
        }}
        onPageChange={(p, size) => {
          setPage(p);
          setPageSize(size);
        }}
      />
      {data?.total_capped && (
        <Typography.Text type="secondary">
          {t('log.totalCapped', { total: data.total.toLocaleString() })}
        </Typography.Text>
      )}
      <UserInfoModal userId={userInfo} onClose={() => setUserInfo(undefined)} />
    </Card>
  );
}
