import { Typography } from 'antd';
import DOMPurify from 'dompurify';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../shared/status.ts';

/** The admin's footer HTML (sanitised), or a default credit line. */
export function AppFooter() {
  const { t } = useTranslation();
  const { status } = useStatus();
  if (status.footer_html) {
    return (
      <div
        className="custom-footer"
        style={{ textAlign: 'center' }}
        // biome-ignore lint/security/noDangerouslySetInnerHtml: admin-written HTML, sanitised by DOMPurify
        dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(status.footer_html) }}
      />
    );
  }
  return (
    <Typography.Text type="secondary" style={{ display: 'block', textAlign: 'center', fontSize: 12 }}>
      {t('footer.credit', { name: status.system_name || 'New API', version: status.version ?? '' })}
    </Typography.Text>
  );
}
