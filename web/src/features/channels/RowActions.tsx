import { DownOutlined, EllipsisOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { feedback } from '../../shared/feedback.tsx';
import { useSession } from '../../shared/session.ts';
import type { Row } from './rows.ts';
import { useChannelTest } from './useChannelTest.ts';

export interface RowActionHandlers {
  onTestWith: (row: Row) => void;
  onCompat: (row: Row) => void;
  onToggle: (row: Row) => void;
  onEdit: (row: Row) => void;
  onCopy: (row: Row) => void;
  onDelete: (row: Row) => void;
  onTagToggle: (row: Row, enable: boolean) => void;
  onTagEdit: (row: Row) => void;
}

/** Buttons of one channel row, or of a tag row in tag mode. */
export function RowActions({ row, h }: { row: Row; h: RowActionHandlers }) {
  const { t } = useTranslation();
  const { isRoot } = useSession();
  const test = useChannelTest();
  if (row.isTag) {
    return (
      <Space size={4} wrap>
        <Button size="small" onClick={() => h.onTagToggle(row, true)}>
          {t('channel.enableAll')}
        </Button>
        <Button size="small" onClick={() => h.onTagToggle(row, false)}>
          {t('channel.disableAll')}
        </Button>
        <Button size="small" onClick={() => h.onTagEdit(row)}>
          {t('channel.editTag')}
        </Button>
      </Space>
    );
  }
  return (
    <Space size={4} wrap>
      <Dropdown.Button
        size="small"
        icon={<DownOutlined />}
        loading={test.isPending}
        onClick={() => test.mutate({ row })}
        menu={{
          items: [
            { key: 'pick', label: t('channel.testWith') },
            { key: 'compat', label: t('channel.compat') },
          ],
          onClick: ({ key }) => (key === 'compat' ? h.onCompat(row) : h.onTestWith(row)),
        }}
      >
        {t('channel.test')}
      </Dropdown.Button>
      <Button size="small" onClick={() => h.onToggle(row)}>
        {row.status === 1 ? t('common.disable') : t('common.enable')}
      </Button>
      <Button size="small" onClick={() => h.onEdit(row)}>
        {t('common.edit')}
      </Button>
      <Dropdown
        trigger={['click']}
        menu={{
          items: [
            { key: 'copy', label: t('channel.copy') },
            { key: 'delete', label: t('common.delete'), danger: true },
          ],
          onClick: ({ key }) =>
            key === 'copy'
              ? feedback.modal?.confirm({
                  title: t('channel.copyConfirm', { name: row.name }),
                  content: isRoot ? undefined : t('channel.copyKeyless'),
                  onOk: () => h.onCopy(row),
                })
              : feedback.modal?.confirm({
                  title: t('channel.deleteConfirm', { name: row.name }),
                  okButtonProps: { danger: true },
                  onOk: () => h.onDelete(row),
                }),
        }}
      >
        <Button size="small" icon={<EllipsisOutlined />} aria-label={t('common.more')} />
      </Dropdown>
    </Space>
  );
}
