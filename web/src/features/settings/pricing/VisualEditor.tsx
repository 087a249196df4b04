import { Button, Input, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type OptionMap, useSaveOptions } from '../api.ts';
import { type EffectiveRow, effectiveRows, overrideOf } from './effective.ts';
import { ModelPriceModal } from './ModelPriceModal.tsx';
import { PriceSourceTag } from './PriceSourceTag.tsx';
import {
  changedPriceOptions,
  outputPrice,
  type PriceRow,
  ratioToInputPrice,
  rowsFromOptions,
} from './priceMath.ts';
import { useBuiltInPrices } from './useBuiltInPrices.ts';

/**
 * Every model's effective price as one table (search, 10 per page, add/edit/delete): the saved options over the
 * built-in tables, each row marked with where its price comes from. `rows` holds only what the options save
 * (an edit of a built-in price keeps the fields that differ); edits stay local until Save, which sends only the
 * options that changed.
 */
export function VisualEditor({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const saved = useMemo(() => rowsFromOptions(options), [options]);
  const [rows, setRows] = useState<PriceRow[]>(saved);
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<{ row?: PriceRow } | null>(null);
  const { save, saving } = useSaveOptions();
  const builtIn = useBuiltInPrices();
  useEffect(() => setRows(saved), [saved]);
  const effective = useMemo(() => effectiveRows(rows, builtIn.rows), [rows, builtIn.rows]);
  const builtInOf = (name: string) => builtIn.rows.find((r) => r.name === name);

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return q ? effective.filter((r) => r.name.toLowerCase().includes(q)) : effective;
  }, [effective, search]);
  const dirty = changedPriceOptions(rows, options).length > 0;

  const upsert = (row: PriceRow) => {
    const own = overrideOf(row, builtInOf(row.name));
    setRows((list) => {
      const without = list.filter((r) => r.name !== row.name);
      return (own ? [...without, own] : without).sort((a, b) => a.name.localeCompare(b.name));
    });
    setEditing(null);
  };
  const drop = (name: string) => setRows((list) => list.filter((x) => x.name !== name));
  const num = (n: number | undefined) =>
    n === undefined ? <Typography.Text type="secondary">-</Typography.Text> : n;

  return (
    <>
      <Space wrap style={{ marginBottom: 12 }}>
        <Input.Search
          allowClear
          placeholder={t('settings.pricing.search')}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
          style={{ width: 240 }}
        />
        <Button onClick={() => setEditing({})}>{t('settings.pricing.addModel')}</Button>
        <Button type="primary" loading={saving} onClick={() => save(changedPriceOptions(rows, options))}>
          {t('settings.pricing.apply')}
        </Button>
        {dirty && <Tag color="orange">{t('settings.pricing.unsaved')}</Tag>}
      </Space>
      <Table<EffectiveRow>
        rowKey="name"
        size="small"
        loading={builtIn.loading}
        dataSource={shown}
        scroll={{ x: 'max-content' }}
        pagination={{ current: page, pageSize: 10, onChange: setPage, showSizeChanger: false }}
        columns={[
          { title: t('settings.pricing.modelName'), dataIndex: 'name' },
          {
            title: t('settings.pricing.source'),
            key: 'source',
            render: (_, r) => <PriceSourceTag source={r.source} />,
          },
          {
            title: t('settings.pricing.billing'),
            key: 'billing',
            render: (_, r) =>
              r.price !== undefined ? (
                <Tag color="purple">{t('settings.pricing.perRequest')}</Tag>
              ) : (
                <Tag color="blue">{t('settings.pricing.perToken')}</Tag>
              ),
          },
          { title: t('settings.pricing.pricePerCall'), dataIndex: 'price', render: num },
          {
            title: t('settings.pricing.ratio'),
            dataIndex: 'ratio',
            render: (v, r) => (r.price !== undefined ? '-' : num(v)),
          },
          {
            title: t('settings.pricing.completionRatio'),
            dataIndex: 'completionRatio',
            render: (v, r) => (r.price !== undefined ? '-' : num(v)),
          },
          {
            title: t('settings.pricing.cacheRatio'),
            dataIndex: 'cacheRatio',
            render: (v, r) => (r.price !== undefined ? '-' : num(v)),
          },
          {
            title: t('settings.pricing.perMillion'),
            key: 'usd',
            render: (_, r) =>
              r.price === undefined && r.ratio !== undefined
                ? `$${ratioToInputPrice(r.ratio)} / $${outputPrice(r.ratio, r.completionRatio ?? 1)}`
                : '-',
          },
          {
            title: t('common.actions'),
            key: 'actions',
            render: (_, r) => (
              <Space>
                <Button size="small" onClick={() => setEditing({ row: r })}>
                  {t('common.edit')}
                </Button>
                {r.source === 'saved' && (
                  <Popconfirm
                    title={t('settings.pricing.deleteConfirm', { name: r.name })}
                    onConfirm={() => drop(r.name)}
                  >
                    <Button size="small" danger>
                      {t('common.delete')}
                    </Button>
                  </Popconfirm>
                )}
                {r.source === 'override' && (
                  <Popconfirm
                    title={t('settings.pricing.restoreConfirm', { name: r.name })}
                    onConfirm={() => drop(r.name)}
                  >
                    <Button size="small">{t('settings.pricing.restore')}</Button>
                  </Popconfirm>
                )}
              </Space>
            ),
          },
        ]}
      />
      <ModelPriceModal
        open={!!editing}
        row={editing?.row}
        existing={effective.map((r) => r.name)}
        onCancel={() => setEditing(null)}
        onSave={upsert}
      />
    </>
  );
}
