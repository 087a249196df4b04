import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PagedTable, usePageSize } from '../../shared/PagedTable.tsx';
import { TimeText } from '../../shared/TimeText.tsx';
import { AuditFilterForm } from './AuditFilterForm.tsx';
import { type AuditEntry, type AuditFilters, listAudit } from './api.ts';
import { ChangesView } from './ChangesView.tsx';
import { VerifyButton } from './VerifyButton.tsx';

const METHOD_COLOR: Record<string, string> = { POST: 'green', PUT: 'blue', PATCH: 'blue', DELETE: 'red' };

/** The audit log (admins and root): read only, filtered, each entry expandable to its before/after. */
export default function AuditPage() {
  const { t } = useTranslation();
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<AuditFilters>({});
  const list = useQuery({
    queryKey: ['audit', filters, page, pageSize],
    queryFn: () => listAudit(filters, page, pageSize),
    placeholderData: keepPreviousData,
  });

  const columns: ColumnsType<AuditEntry> = [
    { title: t('audit.seq'), dataIndex: 'seq', width: 70 },
    { title: t('common.time'), dataIndex: 'created_at', render: (v: number) => <TimeText value={v} /> },
    { title: t('audit.user'), dataIndex: 'username', render: (v: string) => v || '-' },
    { title: t('audit.ip'), dataIndex: 'ip' },
    {
      title: t('audit.action'),
      dataIndex: 'action',
      render: (_, r) => (
        <Space size={4}>
          <Tag color={METHOD_COLOR[r.method] ?? 'default'}>{r.method}</Tag>
          <Typography.Text code>{r.action.replace(/^\S+ /, '')}</Typography.Text>
        </Space>
      ),
    },
    {
      title: t('audit.entity'),
      dataIndex: 'entity',
      render: (v: string) => t(`audit.entities.${v}`, { defaultValue: v }),
    },
    { title: t('audit.target'), dataIndex: 'target', ellipsis: true, render: (v: string) => v || '-' },
  ];

  return (
    <Card title={t('audit.title')}>
      <Typography.Paragraph type="secondary">{t('audit.intro')}</Typography.Paragraph>
      <VerifyButton />
      <div style={{ height: 12 }} />
      <AuditFilterForm
        onSearch={(f) => {
          setFilters(f);
          setPage(1);
        }}
      />
      <PagedTable<AuditEntry>
        rowKey="seq"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isFetching}
        page={page}
        pageSize={pageSize}
        total={list.data?.total}
        expandable={{ expandedRowRender: (r) => <ChangesView changes={r.changes} /> }}
        onPageChange={(p, size) => {
          setPage(p);
          if (size !== pageSize) setPageSize(size);
        }}
      />
    </Card>
  );
}
