import { CopyOutlined, PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Card, Input, Popconfirm, Popover, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../shared/copyText.ts';
import { useKeyList, useRowChange, useStatusToggle } from '../../shared/keyList.ts';
import { PagedTable } from '../../shared/PagedTable.tsx';
import { QuotaText } from '../../shared/QuotaText.tsx';
import { TimeText } from '../../shared/TimeText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { deleteRedemption, listRedemptions, type Redemption, setRedemptionStatus } from './api.ts';
import { RedemptionDrawer } from './RedemptionDrawer.tsx';

const STATUS_COLOR: Record<number, string> = { 1: 'green', 2: 'red', 3: 'default' };

export default function RedemptionsPage() {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const { page, setPage, pageSize, copySelected, tableProps } = useKeyList<Redemption>({
    keyOf: (r) => r.key,
    selectFirst: t('redemption.selectFirst'),
  });
  const [keyword, setKeyword] = useState('');
  const [drawer, setDrawer] = useState<{ open: boolean; editing?: Redemption }>({ open: false });

  const list = useQuery({
    queryKey: ['redemptions', page, pageSize, keyword],
    queryFn: () => listRedemptions(page, pageSize, keyword),
    placeholderData: keepPreviousData,
  });

  const toggle = useStatusToggle<Redemption>('redemptions', setRedemptionStatus);
  const remove = useRowChange(
    'redemptions',
    (r: Redemption) => deleteRedemption(r.id),
    t('common.operationDone'),
  );

  const columns: ColumnsType<Redemption> = [
    { title: t('common.id'), dataIndex: 'id', width: 70 },
    { title: t('redemption.name'), dataIndex: 'name', ellipsis: true },
    {
      title: t('common.status'),
      dataIndex: 'status',
      render: (s: number) => (
        <Tag color={STATUS_COLOR[s]}>{t(`redemption.status${s}`, { defaultValue: t('common.unknown') })}</Tag>
      ),
    },
    { title: t('redemption.quotaLabel'), dataIndex: 'quota', render: (q: number) => <QuotaText quota={q} /> },
    {
      title: t('common.createdAt'),
      dataIndex: 'created_time',
      render: (v: number) => <TimeText value={v} />,
    },
    {
      title: t('redemption.redeemer'),
      dataIndex: 'used_user_id',
      render: (v: number) => (v ? v : t('common.none')),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      fixed: isMobile ? undefined : 'right',
      render: (_, r) => (
        <Space size={4} wrap>
          <Popover
            content={
              <Typography.Text code copyable>
                {r.key}
              </Typography.Text>
            }
            trigger="click"
          >
            <Button size="small">{t('redemption.view')}</Button>
          </Popover>
          <Button
            size="small"
            icon={<CopyOutlined />}
            onClick={() => copyText(r.key)}
            aria-label={t('common.copy')}
          />
          <Button
            size="small"
            disabled={r.status === 3}
            loading={toggle.isPending && toggle.variables?.id === r.id}
            onClick={() => toggle.mutate(r)}
          >
            {r.status === 1 ? t('common.disable') : t('common.enable')}
          </Button>
          <Button
            size="small"
            disabled={r.status !== 1}
            onClick={() => setDrawer({ open: true, editing: r })}
          >
            {t('common.edit')}
          </Button>
          <Popconfirm
            title={t('redemption.deleteConfirm', { name: r.name })}
            onConfirm={() => remove.mutate(r)}
            okButtonProps={{ danger: true }}
          >
            <Button size="small" danger>
              {t('common.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Card title={t('redemption.title')}>
      <Space wrap style={{ marginBottom: 16, width: '100%' }}>
        <Input.Search
          allowClear
          placeholder={t('redemption.searchPlaceholder')}
          onSearch={(v) => {
            setKeyword(v.trim());
            setPage(1);
          }}
          style={{ width: 'min(360px, 80vw)' }}
          enterButton={t('common.search')}
        />
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setDrawer({ open: true })}>
          {t('redemption.add')}
        </Button>
        <Button onClick={copySelected}>{t('redemption.copySelected')}</Button>
      </Space>
      <PagedTable<Redemption>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isFetching}
        total={list.data?.total ?? 0}
        {...tableProps}
      />
      <RedemptionDrawer
        open={drawer.open}
        editing={drawer.editing}
        onClose={() => setDrawer({ open: false })}
      />
    </Card>
  );
}
