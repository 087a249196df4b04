import { Card, Descriptions } from 'antd';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../shared/status.ts';
import { formatTime } from '../../shared/TimeText.tsx';
import type { OptionMap } from './api.ts';
import type { FieldDef } from './fields.ts';
import { OptionSection } from './OptionSection.tsx';
import { VersionCheck } from './VersionCheck.tsx';

const NOTICE: FieldDef[] = [{ key: 'Notice', kind: 'textarea', help: 'settings.help.markdown' }];
const IDENTITY: FieldDef[] = [
  { key: 'SystemName', kind: 'text' },
  { key: 'Logo', kind: 'text', placeholder: 'https://…/logo.png' },
  { key: 'Footer', kind: 'textarea', help: 'settings.help.footer' },
];
const HOME: FieldDef[] = [{ key: 'HomePageContent', kind: 'textarea', help: 'settings.help.homePage' }];
const ABOUT: FieldDef[] = [{ key: 'About', kind: 'textarea', help: 'settings.help.homePage' }];

/** Notice, system name, logo, footer, home page and about, plus the running version. */
export function OtherTab({ options }: { options: OptionMap }) {
  const { t } = useTranslation();
  const { status } = useStatus();
  return (
    <>
      <Card title={t('settings.section.systemInfo')} size="small" style={{ marginBottom: 16 }}>
        <Descriptions column={1} size="small">
          <Descriptions.Item label={t('settings.version')}>
            <VersionCheck />
          </Descriptions.Item>
          <Descriptions.Item label={t('settings.startTime')}>
            {formatTime(status.start_time)}
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <OptionSection title="settings.section.notice" fields={NOTICE} options={options} />
      <OptionSection title="settings.section.identity" fields={IDENTITY} options={options} />
      <OptionSection title="settings.section.home" fields={HOME} options={options} />
      <OptionSection title="settings.section.about" fields={ABOUT} options={options} />
    </>
  );
}
