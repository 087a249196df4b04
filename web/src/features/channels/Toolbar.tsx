import { DownOutlined, PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ColumnSettingsButton, type useColumnSettings } from '../../shared/ColumnSettings.tsx';
import { feedback } from '../../shared/feedback.tsx';

export interface ToolbarProps {
  idSort: boolean;
  tagMode: boolean;
  batchMode: boolean;
  setIdSort: (v: boolean) => void;
  setTagMode: (v: boolean) => void;
  setBatchMode: (v: boolean) => void;
  columns: ReturnType<typeof useColumnSettings>;
  onAdd: () => void;
  onRefresh: () => void;
  onTestAll: () => void;
  onUpdateBalances: () => void;
  onDeleteDisabled: () => void;
  onFix: () => void;
  onDeleteSelected: () => void;
  onSetTag: () => void;
}

function Toggle({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  return (
    <Space size={6}>
      <Switch size="small" checked={checked} onChange={onChange} aria-label={label} />
      <Typography.Text>{label}</Typography.Text>
    </Space>
  );
}

/** Add, refresh, the remembered switches, and the confirmed bulk actions. */
export function Toolbar(p: ToolbarProps) {
  const { t } = useTranslation();
  const confirm = (content: string, onOk: () => void) =>
    feedback.modal?.confirm({ title: t('common.areYouSure'), content, onOk });
  return (
    <Space wrap size={[12, 12]} style={{ marginBottom: 12, width: '100%' }}>
      <Button type="primary" icon={<PlusOutlined />} onClick={p.onAdd}>
        {t('channel.add')}
      </Button>
      <Button icon={<ReloadOutlined />} onClick={p.onRefresh}>
        {t('common.refresh')}
      </Button>
      <Dropdown
        menu={{
          items: [
            { key: 'test', label: t('channel.testAll') },
            { key: 'balance', label: t('channel.updateAllBalances') },
            { key: 'fix', label: t('channel.fix') },
            { type: 'divider' },
            { key: 'disabled', label: t('channel.deleteDisabled'), danger: true },
          ],
          onClick: ({ key }) => {
            if (key === 'test') confirm(t('channel.testAllConfirm'), p.onTestAll);
            if (key === 'balance') confirm(t('channel.updateAllConfirm'), p.onUpdateBalances);
            if (key === 'fix') confirm(t('channel.fixConfirm'), p.onFix);
            if (key === 'disabled') confirm(t('channel.deleteDisabledConfirm'), p.onDeleteDisabled);
          },
        }}
      >
        <Button>
          {t('channel.batchActions')} <DownOutlined />
        </Button>
      </Dropdown>
      <Toggle label={t('channel.idSort')} checked={p.idSort} onChange={p.setIdSort} />
      <Toggle label={t('channel.tagMode')} checked={p.tagMode} onChange={p.setTagMode} />
      <Toggle label={t('channel.batchMode')} checked={p.batchMode} onChange={p.setBatchMode} />
      {p.batchMode && (
        <>
          <Button danger onClick={p.onDeleteSelected}>
            {t('channel.deleteSelected')}
          </Button>
          <Button onClick={p.onSetTag}>{t('channel.setTag')}</Button>
        </>
      )}
      <ColumnSettingsButton settings={p.columns} />
    </Space>
  );
}
