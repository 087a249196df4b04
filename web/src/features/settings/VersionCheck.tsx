import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiFailure, api } from '../../api/client.ts';
import { useStatus } from '../../shared/status.ts';

interface Release {
  current: string;
  latest: string;
  notes: string;
  url: string;
  published_at: string;
  newer: boolean;
}

/**
 * "Check for updates" beside the running version: the server reads the latest public release (VERSION_CHECK_URL)
 * and the answer stays on the page: newer with its notes, up to date, or why it could not be checked.
 */
export function VersionCheck() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const check = useMutation({
    mutationFn: () => api.get<Release>('/api/status/release'),
    meta: { silent: true },
  });
  const configured = status.version_check === true;
  const r = check.data;
  const failure =
    check.error instanceof ApiFailure ? check.error.message : check.error ? String(check.error) : '';

  return (
    <Space direction="vertical" size={8} style={{ width: '100%' }} data-testid="version-check">
      <Space wrap size={8}>
        <Typography.Text>{status.version || '-'}</Typography.Text>
        <Button size="small" disabled={!configured} loading={check.isPending} onClick={() => check.mutate()}>
          {t('settings.checkUpdate')}
        </Button>
        {!configured && <Typography.Text type="secondary">{t('settings.checkUpdateOff')}</Typography.Text>}
      </Space>
      {failure && (
        <Alert type="error" showIcon message={t('settings.checkUpdateFailed')} description={failure} />
      )}
      {r && !r.newer && (
        <Alert type="success" showIcon message={t('settings.upToDate', { latest: r.latest })} />
      )}
      {r?.newer && (
        <Alert
          type="info"
          showIcon
          message={t('settings.newVersion', { latest: r.latest, current: r.current })}
          description={
            <>
              {r.notes && (
                <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', marginBottom: 4 }}>
                  {r.notes}
                </Typography.Paragraph>
              )}
              {r.url && (
                <Typography.Link href={r.url} target="_blank" rel="noopener noreferrer">
                  {t('settings.releasePage')}
                </Typography.Link>
              )}
            </>
          }
        />
      )}
    </Space>
  );
}
