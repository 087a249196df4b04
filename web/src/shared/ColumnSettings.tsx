import { SettingOutlined } from '@ant-design/icons';
import { Button, Checkbox, Modal, Space } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocalSetting } from './storage.ts';

export interface ColumnChoice {
  key: string;
  title: string;
}

/**
 * Which table columns show, remembered in local storage under `storageKey` (e.g. `logs-table-columns`)
 * as `{ key: boolean }`. Columns missing from the stored map use `defaults`.
 */
export function useColumnSettings(
  storageKey: string,
  choices: ColumnChoice[],
  defaults: Record<string, boolean> = {},
) {
  const [stored, setStored] = useLocalSetting<Record<string, boolean>>(storageKey, {});
  const visible = (key: string) => stored[key] ?? defaults[key] ?? true;
  const filter = <T,>(columns: Array<ColumnType<T> & { key?: React.Key }>) =>
    columns.filter((c) => c.key === undefined || visible(String(c.key)));
  return { visible, filter, stored, set: setStored, choices, reset: () => setStored({}) };
}

/** A button opening the column chooser (select all, reset to defaults). */
export function ColumnSettingsButton({ settings }: { settings: ReturnType<typeof useColumnSettings> }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Record<string, boolean>>({});
  const show = () => {
    setDraft(Object.fromEntries(settings.choices.map((c) => [c.key, settings.visible(c.key)])));
    setOpen(true);
  };
  const all = settings.choices.every((c) => draft[c.key]);
  return (
    <>
      <Button icon={<SettingOutlined />} onClick={show}>
        {t('common.columns')}
      </Button>
      <Modal
        open={open}
        title={t('common.columnSettings')}
        onCancel={() => setOpen(false)}
        onOk={() => {
          settings.set(draft);
          setOpen(false);
        }}
        footer={(_, { OkBtn, CancelBtn }) => (
          <Space>
            <Button
              onClick={() => {
                settings.reset();
                setOpen(false);
              }}
            >
              {t('common.reset')}
            </Button>
            <CancelBtn />
            <OkBtn />
          </Space>
        )}
      >
        <Checkbox
          checked={all}
          indeterminate={!all && settings.choices.some((c) => draft[c.key])}
          onChange={(e) =>
            setDraft(Object.fromEntries(settings.choices.map((c) => [c.key, e.target.checked])))
          }
        >
          {t('common.selectAll')}
        </Checkbox>
        <div
          style={{
            display: 'grid',
            gridTemplateColumns: 'repeat(auto-fill, minmax(140px, 1fr))',
            gap: 8,
            marginTop: 12,
          }}
        >
          {settings.choices.map((c) => (
            <Checkbox
              key={c.key}
              checked={!!draft[c.key]}
              onChange={(e) => setDraft({ ...draft, [c.key]: e.target.checked })}
            >
              {c.title}
            </Checkbox>
          ))}
        </div>
      </Modal>
    </>
  );
}
