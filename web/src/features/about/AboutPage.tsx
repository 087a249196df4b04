import { Card, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { RichContent } from '../../shared/RichContent.tsx';
import { useStatus } from '../../shared/status.ts';
import { useContent } from '../home/useContent.ts';

/** About: the admin's text (markdown/HTML, or an https page in a frame), else a short default. */
export default function AboutPage() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const about = useContent('/api/about', 'about');
  const text = about.data ?? '';
  if (about.isLoading && !text) return <Spin style={{ display: 'block', margin: 64 }} />;
  return (
    <Card title={t('about.title')}>
      {text.trim() ? (
        <RichContent text={text} title={t('about.title')} />
      ) : (
        <>
          <Typography.Paragraph>
            {t('about.default', { name: status.system_name || 'New API' })}
          </Typography.Paragraph>
          <Typography.Paragraph type="secondary">{t('about.hint')}</Typography.Paragraph>
        </>
      )}
    </Card>
  );
}
