import { PlusOutlined } from '@ant-design/icons';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Form, Input, Space, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EllipsisText } from '../../shared/EllipsisText.tsx';
import { useKeyList, useRowChange, useStatusToggle } from '../../shared/keyList.ts';
import { PagedTable } from '../../shared/PagedTable.tsx';
import { QuotaText } from '../../shared/QuotaText.tsx';
import { TimeText } from '../../shared/TimeText.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { BudgetCell } from '../budgets/BudgetCell.tsx';
import { SelfBudgetAlert } from '../budgets/SelfBudgetAlert.tsx';
import { RateLimitTags } from '../rate-limits/RateLimitTags.tsx';
import { deleteToken, fullKey, listTokens, searchTokens, setTokenStatus, type Token } from './api.ts';
import { TokenActions } from './TokenActions.tsx';
import { TokenDrawer } from './TokenDrawer.tsx';

const STATUS_COLOR: Record<number, string> = { 1: 'green', 2: 'red', 3: 'orange', 4: 'volcano' };

function StatusTag({ token }: { token: Token }) {
  const { t } = useTranslation();
  const key =
    token.status === 1 && token.model_limits_enabled ? 'token.status1Limited' : `token.status${token.status}`;
  return (
    <Space size={4} wrap>
      <Tag color={STATUS_COLOR[token.status] ?? 'default'}>
        {t(key, { defaultValue: t('common.unknown') })}
      </Tag>
      {token.group && <Tag color="blue">{token.group}</Tag>}
      <RateLimitTags rpm={token.rpm_limit} tpm={token.tpm_limit} />
    </Space>
  );
}

export default function TokensPage() {
  const { t } = useTranslation();
  const isMobile = useIsMobile();
  const { page, setPage, pageSize, setSelected, copySelected, tableProps } = useKeyList<Token>({
    keyOf: fullKey,
    selectFirst: t('token.selectFirst'),
  });
  const [search, setSearch] = useState<{ keyword: string; token: string }>({ keyword: '', token: '' });
  const [drawer, setDrawer] = useState<{ open: boolean; editing?: Token }>({ open: false });
  const searching = !!(search.keyword || search.token);

  const list = useQuery({
    queryKey: ['tokens', searching ? { ...search, page, pageSize } : { page, pageSize }],
    queryFn: async () => {
      if (!searching) return listTokens(page - 1, pageSize);
      // Search answers everything at once; page through it here.
      const found = await searchTokens(search.keyword, search.token);
      return { items: found.slice((page - 1) * pageSize, page * pageSize), total: found.length };
    },
    placeholderData: keepPreviousData,
  });

  const toggle = useStatusToggle<Token>('tokens', setTokenStatus);
  const remove = useRowChange(
    'tokens',
    (tk: Token) => deleteToken(tk.id),
    t('token.deleted'),
    () => setSelected([]),
  );

  const columns: ColumnsType<Token> = [
    {
      title: t('token.name'),
      dataIndex: 'name',
      render: (name: string) => <EllipsisText text={name} maxWidth={160} />,
    },
    { title: t('common.status'), key: 'status', render: (_, tk) => <StatusTag token={tk} /> },
    { title: t('token.used'), dataIndex: 'used_quota', render: (q: number) => <QuotaText quota={q} /> },
    {
      title: t('token.remaining'),
      key: 'remaining',
      render: (_, tk) =>
        tk.unlimited_quota ? <Tag>{t('token.unlimited')}</Tag> : <QuotaText quota={tk.remain_quota} />,
    },
    { title: t('budget.column'), key: 'budget', render: (_, tk) => <BudgetCell budget={tk} /> },
    // Below 1600 px the creation time gives way, so Expires stays clear of the pinned Actions column.
    {
      title: t('token.created'),
      dataIndex: 'created_time',
      responsive: ['xxl'],
      render: (v: number) => <TimeText value={v} />,
    },
    {
      title: t('token.expires'),
      dataIndex: 'expired_time',
      render: (v: number) => (v === -1 ? t('token.never') : <TimeText value={v} />),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      fixed: isMobile ? undefined : 'right',
      render: (_, tk) => (
        <TokenActions
          token={tk}
          busy={toggle.isPending && toggle.variables?.id === tk.id}
          onToggle={() => toggle.mutate(tk)}
          onEdit={() => setDrawer({ open: true, editing: tk })}
          onDelete={() => remove.mutate(tk)}
        />
      ),
    },
  ];

  return (
    <Card title={t('token.title')}>
      <Alert type="warning" showIcon message={t('token.warning')} style={{ marginBottom: 16 }} />
      <SelfBudgetAlert />
      <Form
        layout="inline"
        name="token-search"
        onFinish={(v: { keyword?: string; token?: string }) => {
          setSearch({ keyword: (v.keyword ?? '').trim(), token: (v.token ?? '').trim() });
          setPage(1);
        }}
        style={{ marginBottom: 16, rowGap: 8 }}
      >
        <Form.Item name="keyword" style={{ minWidth: 180 }}>
          <Input allowClear placeholder={t('token.searchName')} />
        </Form.Item>
        <Form.Item name="token" style={{ minWidth: 180 }}>
          <Input allowClear placeholder={t('token.searchKey')} />
        </Form.Item>
        <Form.Item>
          <Space wrap>
            <Button htmlType="submit" type="primary" ghost>
              {t('common.search')}
            </Button>
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setDrawer({ open: true })}>
              {t('token.add')}
            </Button>
            <Button onClick={copySelected}>{t('token.copySelected')}</Button>
          </Space>
        </Form.Item>
      </Form>
      <PagedTable<Token>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.items ?? []}
        loading={list.isFetching}
        total={list.data?.total ?? 0}
        {...tableProps}
      />
      <TokenDrawer open={drawer.open} editing={drawer.editing} onClose={() => setDrawer({ open: false })} />
    </Card>
  );
}
