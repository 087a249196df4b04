import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Segmented, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PagedTable, usePageSize } from '../../shared/PagedTable.tsx';
import { QuotaText } from '../../shared/QuotaText.tsx';
import { useSession } from '../../shared/session.ts';
import { TimeText } from '../../shared/TimeText.tsx';
import { listOrders, type TopupOrder } from './api.ts';

const STATUS_COLOR: Record<string, string> = { pending: 'gold', success: 'green', expired: 'default' };

/** The user's online top-up orders; an admin can switch to every user's. */
export function OrdersCard() {
  const { t } = useTranslation();
  const { isAdmin } = useSession();
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const [scope, setScope] = useState<'mine' | 'all'>('mine');
  const showAll = isAdmin && scope === 'all';
  const orders = useQuery({
    queryKey: ['topup-orders', page, pageSize, showAll],
    queryFn: () => listOrders(page, pageSize, !showAll),
    placeholderData: keepPreviousData,
  });

  const columns: ColumnsType<TopupOrder> = [
    {
      title: t('wallet.tradeNo'),
      dataIndex: 'trade_no',
      render: (v: string) => <Typography.Text copyable={{ text: v }}>{v}</Typography.Text>,
    },
    ...(showAll ? [{ title: t('wallet.user'), dataIndex: 'username' }] : []),
    { title: t('wallet.quota'), dataIndex: 'amount', render: (q: number) => <QuotaText quota={q} /> },
    { title: t('wallet.money'), dataIndex: 'money', render: (m: number) => `¥${Number(m).toFixed(2)}` },
    {
      title: t('wallet.method'),
      dataIndex: 'payment_method',
      render: (m: string) => (m === 'zfb' ? t('wallet.alipay') : m === 'wx' ? t('wallet.wechat') : m),
    },
    {
      title: t('wallet.orderStatus'),
      dataIndex: 'status',
      render: (s: string) => (
        <Tag color={STATUS_COLOR[s] ?? 'default'}>{t(`wallet.status_${s}`, { defaultValue: s })}</Tag>
      ),
    },
    { title: t('wallet.createdAt'), dataIndex: 'create_time', render: (v: number) => <TimeText value={v} /> },
    {
      title: t('wallet.completedAt'),
      dataIndex: 'complete_time',
      render: (v: number) => <TimeText value={v} />,
    },
  ];

  return (
    <Card
      title={t('wallet.ordersTitle')}
      extra={
        isAdmin ? (
          <Segmented
            size="small"
            value={scope}
            onChange={(v) => {
              setScope(v as 'mine' | 'all');
              setPage(1);
            }}
            options={[
              { value: 'mine', label: t('wallet.myOrders') },
              { value: 'all', label: t('wallet.allOrders') },
            ]}
          />
        ) : undefined
      }
    >
      <PagedTable<TopupOrder>
        rowKey="id"
        columns={columns}
        dataSource={orders.data?.items ?? []}
        loading={orders.isFetching}
        page={page}
        pageSize={pageSize}
        total={orders.data?.total ?? 0}
        onPageChange={(p, size) => {
          setPage(p);
          setPageSize(size);
        }}
      />
    </Card>
  );
}
