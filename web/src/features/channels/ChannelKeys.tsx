import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Input, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';
import { formatTime } from '../../shared/TimeText.tsx';
import { type ChannelKey, editChannelKeys, type KeyEdit, testChannelKey } from './api.ts';
import { STATUS_COLOR } from './rows.ts';

/**
 * The keys of a multi-key channel in the edit drawer: each key's short label and fingerprint, its status, why and
 * when it was disabled, and actions on one key at a time (test, enable or disable, replace, remove); keys are added or replaced without retyping the others. Keys are never shown.
 */
export function ChannelKeys({ channelId, keys: initial }: { channelId: number; keys: ChannelKey[] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [keys, setKeys] = useState(initial);
  const [adding, setAdding] = useState('');
  const [replacing, setReplacing] = useState<{ index: number; key: string } | null>(null);
  const edit = useMutation({
    mutationFn: (e: KeyEdit) => editChannelKeys(channelId, e),
    onSuccess: (next) => {
      setKeys(next);
      setAdding('');
      setReplacing(null);
      feedback.message?.success(t('channel.keysSaved'));
      queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });
  const test = useMutation({
    mutationFn: (index: number) => testChannelKey(channelId, index),
    onSuccess: (r, index) => {
      if (r.keys) setKeys(r.keys);
      if (r.success)
        feedback.message?.success(t('channel.keyTestPassed', { index, time: (r.time ?? 0).toFixed(2) }));
      else feedback.message?.error(t('channel.keyTestFailed', { index, message: r.message }));
      queryClient.invalidateQueries({ queryKey: ['channels'] });
    },
  });
  const enabled = keys.filter((k) => k.status === 1).length;

  return (
    <div data-testid="channel-keys" style={{ marginBottom: 16 }}>
      <Typography.Text strong>{t('channel.keysTitle', { enabled, total: keys.length })}</Typography.Text>
      <Table<ChannelKey>
        size="small"
        rowKey="index"
        pagination={false}
        scroll={{ x: true }}
        style={{ marginTop: 8 }}
        dataSource={keys}
        columns={[
          { key: 'index', title: '#', dataIndex: 'index', width: 48 },
          {
            key: 'label',
            title: t('channel.keyFingerprint'),
            dataIndex: 'label',
            render: (label: string, k) => (
              <Space direction="vertical" size={0}>
                <Typography.Text style={{ whiteSpace: 'nowrap' }}>{label}</Typography.Text>
                <Typography.Text code type="secondary" style={{ whiteSpace: 'nowrap', fontSize: 12 }}>
                  {k.fingerprint}
                </Typography.Text>
              </Space>
            ),
          },
          {
            key: 'status',
            title: t('channel.colStatus'),
            dataIndex: 'status',
            render: (s: number, k) => (
              <Space direction="vertical" size={0}>
                <Tag color={STATUS_COLOR[s] ?? 'default'}>{t(`channel.status${s}`)}</Tag>
                {k.reason && <Typography.Text type="secondary">{k.reason}</Typography.Text>}
                {k.time > 0 && <Typography.Text type="secondary">{formatTime(k.time)}</Typography.Text>}
              </Space>
            ),
          },
          {
            key: 'actions',
            title: t('common.actions'),
            render: (_, k) => (
              <Space wrap size={4}>
                <Button
                  size="small"
                  loading={test.isPending && test.variables === k.index}
                  onClick={() => test.mutate(k.index)}
                  data-testid={`key-test-${k.index}`}
                >
                  {t('channel.keyTest')}
                </Button>
                <Button
                  size="small"
                  onClick={() =>
                    edit.mutate({ action: k.status === 1 ? 'disable' : 'enable', index: k.index })
                  }
                >
                  {t(k.status === 1 ? 'channel.keyDisable' : 'channel.keyEnable')}
                </Button>
                <Button size="small" onClick={() => setReplacing({ index: k.index, key: '' })}>
                  {t('channel.keyReplace')}
                </Button>
                <Popconfirm
                  title={t('channel.keyRemoveConfirm')}
                  onConfirm={() => edit.mutate({ action: 'remove', index: k.index })}
                >
                  <Button size="small" danger disabled={keys.length === 1}>
                    {t('channel.keyRemove')}
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {replacing && (
        <Space.Compact style={{ width: '100%', marginTop: 8 }}>
          <Input.Password
            autoComplete="new-password"
            placeholder={t('channel.keyReplacePlaceholder', { index: replacing.index })}
            value={replacing.key}
            onChange={(e) => setReplacing({ ...replacing, key: e.target.value })}
          />
          <Button
            type="primary"
            disabled={!replacing.key.trim()}
            loading={edit.isPending}
            onClick={() => edit.mutate({ action: 'replace', ...replacing })}
          >
            {t('common.submit')}
          </Button>
        </Space.Compact>
      )}
      <Input.TextArea
        style={{ marginTop: 8, fontFamily: 'monospace' }}
        autoSize={{ minRows: 2, maxRows: 6 }}
        placeholder={t('channel.keysAddPlaceholder')}
        value={adding}
        onChange={(e) => setAdding(e.target.value)}
      />
      <Button
        style={{ marginTop: 8 }}
        disabled={!adding.trim()}
        loading={edit.isPending}
        onClick={() => edit.mutate({ action: 'add', keys: adding })}
      >
        {t('channel.keysAdd')}
      </Button>
    </div>
  );
}
