import { Button, Input, List, Modal, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type Row, splitList } from './rows.ts';
import { useChannelTest } from './useChannelTest.ts';

/** Pick one of the channel's models (searchable) and test the channel with it. */
export function TestModal({ row, onClose }: { row?: Row; onClose: () => void }) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState('');
  const test = useChannelTest();
  const models = useMemo(() => {
    const all = row ? splitList(row.models) : [];
    const f = filter.trim().toLowerCase();
    return f ? all.filter((m) => m.toLowerCase().includes(f)) : all;
  }, [row, filter]);
  return (
    <Modal
      open={!!row}
      title={row ? t('channel.testTitle', { name: row.name }) : ''}
      onCancel={() => {
        setFilter('');
        onClose();
      }}
      footer={null}
      destroyOnHidden
    >
      <Input.Search
        allowClear
        placeholder={t('channel.testSearch')}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
      />
      <Typography.Paragraph type="secondary" style={{ margin: '8px 0' }}>
        {t('channel.testFound', { count: models.length })}
      </Typography.Paragraph>
      <List
        size="small"
        style={{ maxHeight: 360, overflowY: 'auto' }}
        dataSource={models}
        renderItem={(m) => (
          <List.Item
            actions={[
              <Button
                key="test"
                size="small"
                loading={test.isPending && test.variables?.model === m}
                onClick={() => row && test.mutate({ row, model: m })}
              >
                {t('channel.test')}
              </Button>,
            ]}
          >
            <Typography.Text style={{ wordBreak: 'break-all' }}>{m}</Typography.Text>
          </List.Item>
        )}
      />
    </Modal>
  );
}
