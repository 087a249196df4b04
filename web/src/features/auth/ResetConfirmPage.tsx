import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client.ts';
import { copyText } from '../../shared/copyText.ts';
import { feedback } from '../../shared/feedback.tsx';
import { AuthCard } from './AuthCard.tsx';

/** /user/reset?email&token: the link from the reset e-mail; the server answers with a new password. */
export default function ResetConfirmPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const reset = useMutation({
    mutationFn: () => api.post<string>('/api/user/reset', { email, token }),
    onSuccess: async (password) => {
      await copyText(password, { silent: true });
      feedback.message?.success(t('auth.resetDone', { password }));
    },
  });
  const valid = email !== '' && token !== '';
  return (
    <AuthCard title={t('auth.resetConfirmTitle')}>
      {!valid && (
        <Alert type="error" showIcon title={t('auth.resetLinkInvalid')} style={{ marginBottom: 16 }} />
      )}
      <Typography.Paragraph type="secondary">{t('auth.resetConfirmIntro')}</Typography.Paragraph>
      <Form layout="vertical">
        <Form.Item label={t('auth.email')}>
          <Input value={email} readOnly />
        </Form.Item>
        {reset.data && (
          <Form.Item label={t('auth.newPassword')}>
            <Input
              value={reset.data}
              readOnly
              onClick={() => copyText(reset.data)}
              style={{ fontFamily: 'monospace' }}
              data-testid="new-password"
            />
          </Form.Item>
        )}
        <Button
          type="primary"
          block
          disabled={!valid || reset.isSuccess}
          loading={reset.isPending}
          onClick={() => reset.mutate()}
        >
          {t('auth.resetConfirmSubmit')}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0, textAlign: 'center' }}>
        <Link to="/login">{t('auth.backToLogin')}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
