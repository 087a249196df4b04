import { useQuery } from '@tanstack/react-query';
import { Button, Empty, Input, Select, Space, Table } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../../api/client.ts';
import { feedback } from '../../../shared/feedback.tsx';
import { type OptionMap, useSaveOptions } from '../api.ts';
import { effectiveRows, isPriced } from './effective.ts';
import { changedPriceOptions, type PriceRow, parseNumber, rowsFromOptions } from './priceMath.ts';
import { useBuiltInPrices } from './useBuiltInPrices.ts';

interface Draft {
  name: string;
  price: string;
  ratio: string;
  completionRatio: string;
}
type FillField = 'price' | 'ratio' | 'completionRatio' | 'both';

/**
 * Models that channels serve but that have neither a price nor a ratio, saved or built in (the ones the relay
 * refuses, or bills at the unpriced ratio in self-use mode): fill them one by one or in batch, then apply (a
 * fixed price disables the row's ratios and wins over them).
 */
export function UnsetModels({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const enabled = useQuery({
    queryKey: ['channel-models-enabled'],
    queryFn: () => api.get<string[]>('/api/channel/models_enabled'),
  });
  const priced = useMemo(() => rowsFromOptions(options), [options]);
  const builtIn = useBuiltInPrices();
  const effective = useMemo(() => effectiveRows(priced, builtIn.rows), [priced, builtIn.rows]);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [fill, setFill] = useState<{ field: FillField; value: string; value2: string }>({
    field: 'ratio',
    value: '',
    value2: '',
  });
  const [newName, setNewName] = useState('');
  const { save, saving } = useSaveOptions();

  useEffect(() => {
    const known = new Set(effective.filter(isPriced).map((r) => r.name));
    const names = [...new Set(enabled.data ?? [])].filter((n) => !known.has(n)).sort();
    setDrafts(names.map((name) => ({ name, price: '', ratio: '', completionRatio: '' })));
    setSelected([]);
  }, [enabled.data, effective]);

  const setDraft = (name: string, patch: Partial<Draft>) =>
    setDrafts((list) => list.map((d) => (d.name === name ? { ...d, ...patch } : d)));

  const batchFill = () => {
    if (!selected.length) return feedback.message?.error(t('settings.pricing.selectFirst'));
    if (fill.field === 'both') {
      if (!fill.value.trim() || !fill.value2.trim())
        return feedback.message?.error(t('settings.pricing.enterBoth'));
    } else if (!fill.value.trim()) return feedback.message?.error(t('settings.pricing.enterFill'));
    const values = fill.field === 'both' ? [fill.value, fill.value2] : [fill.value];
    if (
      values.some((v) => {
        const n = parseNumber(v);
        return n === undefined || Number.isNaN(n) || n < 0;
      })
    ) {
      return feedback.message?.error(t('settings.pricing.validNumber'));
    }
    setDrafts((list) =>
      list.map((d) => {
        if (!selected.includes(d.name)) return d;
        if (fill.field === 'both')
          return { ...d, price: '', ratio: fill.value.trim(), completionRatio: fill.value2.trim() };
        if (fill.field === 'price') return { ...d, price: fill.value.trim() };
        return { ...d, [fill.field]: fill.value.trim() };
      }),
    );
  };

  const addModel = () => {
    const name = newName.trim();
    if (!name) return;
    if (drafts.some((d) => d.name === name) || effective.some((r) => r.name === name && isPriced(r)))
      return feedback.message?.error(t('settings.pricing.duplicate'));
    setDrafts((list) => [{ name, price: '', ratio: '', completionRatio: '' }, ...list]);
    setNewName('');
  };

  const apply = () => {
    const filled: PriceRow[] = [];
    for (const d of drafts) {
      const price = parseNumber(d.price);
      const ratio = parseNumber(d.ratio);
      const completionRatio = parseNumber(d.completionRatio);
      if ([price, ratio, completionRatio].some((n) => n !== undefined && (Number.isNaN(n) || n < 0))) {
        return feedback.message?.error(t('settings.pricing.enterNumberFor', { name: d.name }));
      }
      if (price === 0) return feedback.message?.error(t('settings.pricing.priceZero'));
      if (price !== undefined) filled.push({ name: d.name, price });
      else if (ratio !== undefined) filled.push({ name: d.name, ratio, completionRatio });
    }
    save(changedPriceOptions([...priced, ...filled], options));
  };

  const input = (d: Draft, field: keyof Omit<Draft, 'name'>, disabled = false) => {
    const n = parseNumber(d[field]);
    return (
      <Input
        size="small"
        style={{ width: 110 }}
        value={d[field]}
        disabled={disabled}
        status={n !== undefined && Number.isNaN(n) ? 'error' : undefined}
        placeholder={disabled ? '-' : ''}
        aria-label={`${d.name} ${t(`settings.pricing.${field === 'price' ? 'pricePerCall' : field}`)}`}
        onChange={(e) => setDraft(d.name, { [field]: e.target.value })}
      />
    );
  };

  return (
    <>
      <Space wrap style={{ marginBottom: 12 }}>
        <Select<FillField>
          value={fill.field}
          style={{ width: 170 }}
          onChange={(field) => setFill((f) => ({ ...f, field }))}
          options={(['price', 'ratio', 'completionRatio', 'both'] as const).map((v) => ({
            value: v,
            label: t(`settings.pricing.fill.${v}`),
          }))}
        />
        <Input
          style={{ width: 110 }}
          placeholder={t('settings.pricing.fillValue')}
          value={fill.value}
          onChange={(e) => setFill((f) => ({ ...f, value: e.target.value }))}
        />
        {fill.field === 'both' && (
          <Input
            style={{ width: 110 }}
            placeholder={t('settings.pricing.completionRatio')}
            value={fill.value2}
            onChange={(e) => setFill((f) => ({ ...f, value2: e.target.value }))}
          />
        )}
        <Button onClick={batchFill}>{t('settings.pricing.batchFill')}</Button>
        <Input
          style={{ width: 180 }}
          placeholder={t('settings.pricing.modelName')}
          value={newName}
          onChange={(e) => setNewName(e.target.value)}
          onPressEnter={addModel}
        />
        <Button onClick={addModel}>{t('settings.pricing.addModel')}</Button>
        <Button type="primary" onClick={apply} loading={saving}>
          {t('settings.pricing.apply')}
        </Button>
      </Space>
      <Table<Draft>
        rowKey="name"
        size="small"
        loading={enabled.isLoading || builtIn.loading}
        dataSource={drafts}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: <Empty description={t('settings.pricing.allPriced')} /> }}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys as string[]) }}
        columns={[
          { title: t('settings.pricing.modelName'), dataIndex: 'name' },
          { title: t('settings.pricing.pricePerCall'), key: 'price', render: (_, d) => input(d, 'price') },
          {
            title: t('settings.pricing.ratio'),
            key: 'ratio',
            render: (_, d) => input(d, 'ratio', !!d.price.trim()),
          },
          {
            title: t('settings.pricing.completionRatio'),
            key: 'completion',
            render: (_, d) => input(d, 'completionRatio', !!d.price.trim()),
          },
        ]}
      />
    </>
  );
}
