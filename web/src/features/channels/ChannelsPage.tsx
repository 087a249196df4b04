import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Form, Input, Select, Space } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { ApiFailure } from '../../api/client.ts';
import { useColumnSettings } from '../../shared/ColumnSettings.tsx';
import { feedback } from '../../shared/feedback.tsx';
import { PagedTable, usePageSize } from '../../shared/PagedTable.tsx';
import { useQuotaFormat } from '../../shared/QuotaText.tsx';
import { useLocalSetting } from '../../shared/storage.ts';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import * as api from './api.ts';
import { BatchTagModal } from './BatchTagModal.tsx';
import { ChannelDrawer } from './ChannelDrawer.tsx';
import { CompatModal } from './CompatModal.tsx';
import { COLUMN_KEYS, channelColumns } from './columns.tsx';
import { RowActions } from './RowActions.tsx';
import { type Row, toRows } from './rows.ts';
import { TagEditModal } from './TagEditModal.tsx';
import { TestModal } from './TestModal.tsx';
import { Toolbar } from './Toolbar.tsx';
import { useChannelAction } from './useChannelMutations.ts';

const EMPTY_SEARCH: api.SearchParams = { keyword: '', group: '', model: '' };

export default function ChannelsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const params = useParams();
  const queryClient = useQueryClient();
  const { format } = useQuotaFormat();
  const isMobile = useIsMobile();
  const [pageSize, setPageSize] = usePageSize();
  const [page, setPage] = useState(1);
  const [idSort, setIdSort] = useLocalSetting('id-sort', false);
  const [tagMode, setTagMode] = useLocalSetting('enable-tag-mode', false);
  const [batchMode, setBatchMode] = useLocalSetting('enable-batch-delete', false);
  const [search, setSearch] = useState<api.SearchParams>(EMPTY_SEARCH);
  const [selected, setSelected] = useState<number[]>([]);
  const [testing, setTesting] = useState<Row>();
  const [checking, setChecking] = useState<Row>();
  const [tagEditing, setTagEditing] = useState<Row>();
  const [tagging, setTagging] = useState(false);
  const searching = !!(search.keyword || search.group || search.model);

  const drawerOpen = location.pathname.startsWith('/channel/add') || !!params.id;
  const editId = params.id ? Number(params.id) : undefined;

  const groups = useQuery({ queryKey: ['groups'], queryFn: api.allGroups, staleTime: 60_000 });
  const list = useQuery({
    queryKey: ['channels', { page, pageSize, idSort, tagMode, search }],
    queryFn: async () => {
      if (!searching) return api.listChannels({ page, pageSize, idSort, tagMode });
      const found = await api.searchChannels(search, idSort, tagMode);
      return { items: found, total: found.length };
    },
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => {
    const all = toRows(list.data?.items ?? [], tagMode);
    return searching ? all.slice((page - 1) * pageSize, page * pageSize) : all;
  }, [list.data, tagMode, searching, page, pageSize]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['channels'] });

  const done = () => t('common.operationDone');
  const update = useChannelAction(
    (body: api.ChannelInput & { id: number }) => api.updateChannel(body),
    () => t('channel.updated'),
  );
  const tagEdit = useChannelAction(
    (body: Parameters<typeof api.editTag>[0]) => api.editTag(body),
    () => t('channel.tagSaved'),
  );
  const tagStatus = useChannelAction(
    ({ tag, enable }: { tag: string; enable: boolean }) => api.setTagStatus(tag, enable),
    done,
  );
  const remove = useChannelAction(
    (id: number) => api.deleteChannel(id),
    () => t('channel.deleted'),
  );
  const copy = useMutation({
    mutationFn: (id: number) => api.copyChannel(id, t('channel.copySuffix')),
    meta: { silent: true },
    onSuccess: () => {
      feedback.message?.success(t('channel.copied'));
      refresh();
    },
    // A channel gone since the list loaded, or any other failure.
    onError: (err) =>
      feedback.message?.error(
        err instanceof ApiFailure && err.status === 404 ? t('channel.notFound') : t('channel.copyFailed'),
      ),
  });

  const balance = useChannelAction(
    (id: number) => api.updateBalance(id),
    (v) => t('channel.balanceUpdated', { value: `$${v.toFixed(2)}` }),
  );
  const testAll = useChannelAction(
    () => api.testAll(),
    () => t('channel.testAllStarted'),
  );
  const balances = useChannelAction(
    () => api.updateAllBalances(),
    (r) => t('channel.balancesUpdated', { updated: r.updated }),
  );
  const deleteDisabled = useChannelAction(
    () => api.deleteDisabled(),
    (n) => t('channel.deletedCount', { count: n }),
  );
  const fix = useChannelAction(
    () => api.fixAbilities(),
    (n) => t('channel.fixed', { count: n }),
  );
  const deleteMany = useChannelAction(
    (ids: number[]) => api.deleteMany(ids),
    (n) => {
      setSelected([]);
      return t('channel.deletedCount', { count: n });
    },
  );
  const setTagMany = useChannelAction(
    ({ ids, tag }: { ids: number[]; tag: string }) => api.setTagMany(ids, tag),
    () => {
      setTagging(false);
      setSelected([]);
      return done();
    },
  );

  const confirmTag = (row: Row, field: 'priority' | 'weight', value: number) =>
    feedback.modal?.confirm({
      title: t('common.areYouSure'),
      content: t(field === 'priority' ? 'channel.tagPriorityConfirm' : 'channel.tagWeightConfirm', {
        tag: row.tag,
        value,
      }),
      onOk: () => tagEdit.mutate({ tag: row.tag, [field]: value }),
      onCancel: refresh,
    });

  const columnSettings = useColumnSettings(
    'channels-table-columns',
    COLUMN_KEYS.map((key) => ({ key, title: t(`channel.col${key[0].toUpperCase()}${key.slice(1)}`) })),
  );
  const columns = columnSettings.filter(
    channelColumns(t, {
      format,
      fixedActions: !isMobile,
      onBalance: (r) => balance.mutate(r.id),
      onPriority: (r, v) =>
        r.isTag ? confirmTag(r, 'priority', v) : update.mutate({ id: r.id, priority: v }),
      onWeight: (r, v) => (r.isTag ? confirmTag(r, 'weight', v) : update.mutate({ id: r.id, weight: v })),
      actions: (r) => (
        <RowActions
          row={r}
          h={{
            onTestWith: setTesting,
            onCompat: setChecking,
            onToggle: (row) => update.mutate({ id: row.id, status: row.status === 1 ? 2 : 1 }),
            onEdit: (row) => navigate(`/channel/edit/${row.id}`),
            onCopy: (row) => copy.mutate(row.id),
            onDelete: (row) => remove.mutate(row.id),
            onTagToggle: (row, enable) => tagStatus.mutate({ tag: row.tag, enable }),
            onTagEdit: setTagEditing,
          }}
        />
      ),
    }),
  );

  const needSelection = (message: string) => {
    if (selected.length > 0) return true;
    feedback.message?.error(message);
    return false;
  };

  return (
    <Card title={t('channel.title')}>
      <Form
        layout="inline"
        name="channel-search"
        style={{ marginBottom: 12, rowGap: 8 }}
        onFinish={(v: Partial<api.SearchParams>) => {
          setSearch({
            keyword: (v.keyword ?? '').trim(),
            group: v.group ?? '',
            model: (v.model ?? '').trim(),
          });
          setPage(1);
        }}
      >
        <Form.Item name="keyword" style={{ minWidth: 200 }}>
          <Input allowClear placeholder={t('channel.searchKeyword')} />
        </Form.Item>
        <Form.Item name="model" style={{ minWidth: 150 }}>
          <Input allowClear placeholder={t('channel.searchModel')} />
        </Form.Item>
        <Form.Item name="group" style={{ minWidth: 140 }}>
          <Select
            allowClear
            placeholder={t('channel.searchGroup')}
            options={(groups.data ?? []).map((g) => ({ value: g, label: g }))}
            onChange={(g?: string) => {
              setSearch((s) => ({ ...s, group: g ?? '' }));
              setPage(1);
            }}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" ghost htmlType="submit">
              {t('common.search')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Toolbar
        idSort={idSort}
        tagMode={tagMode}
        batchMode={batchMode}
        setIdSort={setIdSort}
        setTagMode={(v) => {
          setTagMode(v);
          setPage(1);
        }}
        setBatchMode={(v) => {
          setBatchMode(v);
          setSelected([]);
        }}
        columns={columnSettings}
        onAdd={() => navigate('/channel/add')}
        onRefresh={refresh}
        onTestAll={() => testAll.mutate(undefined)}
        onUpdateBalances={() => balances.mutate(undefined)}
        onDeleteDisabled={() => deleteDisabled.mutate(undefined)}
        onFix={() => fix.mutate(undefined)}
        onDeleteSelected={() => {
          if (!needSelection(t('channel.selectFirst'))) return;
          feedback.modal?.confirm({
            title: t('common.areYouSure'),
            content: t('channel.deleteSelectedConfirm', { count: selected.length }),
            okButtonProps: { danger: true },
            onOk: () => deleteMany.mutate(selected),
          });
        }}
        onSetTag={() => needSelection(t('channel.selectForTag')) && setTagging(true)}
      />
      <PagedTable<Row>
        rowKey="rowKey"
        columns={columns}
        dataSource={rows}
        loading={list.isFetching}
        page={page}
        pageSize={pageSize}
        total={list.data?.total ?? 0}
        expandable={tagMode ? { defaultExpandAllRows: false } : undefined}
        rowSelection={
          batchMode
            ? {
                selectedRowKeys: selected.map(String),
                checkStrictly: false,
                onChange: (_, picked) => setSelected(picked.filter((r) => !r.isTag).map((r) => r.id)),
              }
            : undefined
        }
        onRow={(r) => ({ style: r.status === 1 ? undefined : { opacity: 0.6 } })}
        onPageChange={(p, size) => {
          setPage(p);
          setPageSize(size);
        }}
      />
      <ChannelDrawer
        open={drawerOpen}
        editId={editId}
        groups={groups.data ?? ['default']}
        onClose={() => navigate('/channel')}
      />
      <TestModal row={testing} onClose={() => setTesting(undefined)} />
      <CompatModal row={checking} onClose={() => setChecking(undefined)} />
      <TagEditModal row={tagEditing} groups={groups.data ?? []} onClose={() => setTagEditing(undefined)} />
      <BatchTagModal
        open={tagging}
        count={selected.length}
        busy={setTagMany.isPending}
        onOk={(tag) => setTagMany.mutate({ ids: selected, tag })}
        onClose={() => setTagging(false)}
      />
    </Card>
  );
}
