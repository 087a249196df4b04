import { useMutation, useQuery } from '@tanstack/react-query';
import { Button, Input, Select, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showError } from '../../shared/feedback.tsx';
import { readJson, writeJson } from '../../shared/storage.ts';
import { fetchModelsAdHoc, fetchModelsById, knownModels, modelsByType } from './api.ts';

/** The type -> default models map, cached under `channel_models` so the form fills at once. */
export function useTypeModels() {
  return useQuery({
    queryKey: ['models-by-type'],
    queryFn: async () => {
      const data = await modelsByType();
      writeJson('channel_models', data);
      return data;
    },
    placeholderData: () => readJson<Record<string, string[]> | undefined>('channel_models', undefined),
    staleTime: 300_000,
  });
}

/**
 * The models field: a multi-select that also takes typed names, plus buttons to fill the type's models,
 * every known model, the upstream's own list (through the server), clear, and a comma-separated custom add.
 */
export function ModelPicker({
  value = [],
  onChange,
  type,
  channelId,
  upstream,
}: {
  value?: string[];
  onChange?: (v: string[]) => void;
  type: number;
  channelId?: number;
  /** Reads base URL and key from the form when fetching upstream models. */
  upstream: () => { base_url: string; key: string };
}) {
  const { t } = useTranslation();
  const [custom, setCustom] = useState('');
  const typeModels = useTypeModels();
  const known = useQuery({ queryKey: ['known-models'], queryFn: knownModels, staleTime: 300_000 });
  const merge = (more: string[]) => onChange?.([...new Set([...value, ...more])]);

  const fetchUpstream = useMutation({
    mutationFn: async () => {
      const { base_url, key } = upstream();
      if (channelId && !key.trim()) return fetchModelsById(channelId);
      if (!key.trim()) throw new Error('needKey');
      return fetchModelsAdHoc({ base_url, type, key: key.split('\n')[0].trim() });
    },
    meta: { silent: true },
    onSuccess: (models) => {
      merge(models);
      feedback.message?.success(t('channel.fetched', { count: models.length }));
    },
    onError: (err) => {
      if (err instanceof Error && err.message === 'needKey') feedback.message?.error(t('channel.needKey'));
      else {
        feedback.message?.error(t('channel.fetchFailed'));
        showError(err);
      }
    },
  });

  const addCustom = () => {
    const names = custom
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (names.length === 0) return;
    if (names.some((n) => value.includes(n))) feedback.message?.warning(t('channel.modelsExist'));
    merge(names);
    setCustom('');
  };

  const options = [...new Set([...(known.data ?? []).map((m) => m.id), ...value])].map((m) => ({
    value: m,
    label: m,
  }));
  return (
    <Space direction="vertical" style={{ width: '100%' }} size={8}>
      <Select
        mode="tags"
        allowClear
        value={value}
        onChange={(v) => onChange?.(v)}
        options={options}
        tokenSeparators={[',']}
        placeholder={t('channel.modelsPlaceholder')}
        maxTagCount={40}
        data-testid="channel-models"
      />
      <Space wrap size={[6, 6]}>
        <Button size="small" onClick={() => merge(typeModels.data?.[String(type)] ?? [])}>
          {t('channel.fillRelated')}
        </Button>
        <Button size="small" onClick={() => merge((known.data ?? []).map((m) => m.id))}>
          {t('channel.fillAll')}
        </Button>
        <Button
          size="small"
          type="primary"
          ghost
          loading={fetchUpstream.isPending}
          onClick={() => fetchUpstream.mutate()}
        >
          {t('channel.fetchUpstream')}
        </Button>
        <Button size="small" danger onClick={() => onChange?.([])}>
          {t('channel.clearModels')}
        </Button>
      </Space>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          value={custom}
          onChange={(e) => setCustom(e.target.value)}
          onPressEnter={addCustom}
          placeholder={t('channel.customModels')}
        />
        <Button onClick={addCustom}>{t('channel.addCustom')}</Button>
      </Space.Compact>
    </Space>
  );
}
