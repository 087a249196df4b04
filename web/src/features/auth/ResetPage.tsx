import { MailOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Button, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import { useStatus } from '../../shared/status.ts';
import { Turnstile } from '../../shared/Turnstile.tsx';
import { useCountdown } from '../../shared/useCountdown.ts';
import { AuthCard } from './AuthCard.tsx';

/** /reset: asks for a reset e-mail; the button then rests for 30 s. */
export default function ResetPage() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const [turnstileToken, setTurnstileToken] = useState('');
  const countdown = useCountdown(30);
  const send = useMutation({
    mutationFn: (email: string) => api.get('/api/reset_password', { email, turnstile: turnstileToken }),
    onSuccess: () => {
      feedback.message?.success(t('auth.resetSent'));
      countdown.start();
    },
  });
  return (
    <AuthCard title={t('auth.resetTitle')}>
      <Typography.Paragraph type="secondary">{t('auth.resetIntro')}</Typography.Paragraph>
      <Form<{ email: string }>
        name="reset"
        layout="vertical"
        requiredMark={false}
        onFinish={({ email }) => {
          if (status.turnstile_check && !turnstileToken)
            return feedback.message?.info(t('auth.turnstileWait'));
          send.mutate(email.trim());
        }}
      >
        <Form.Item
          name="email"
          label={t('auth.email')}
          rules={[{ required: true, type: 'email', message: t('auth.emailRequired') }]}
        >
          <Input
            prefix={<MailOutlined />}
            type="email"
            autoComplete="email"
            placeholder={t('auth.emailPlaceholder')}
          />
        </Form.Item>
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onToken={setTurnstileToken} />
        )}
        <Button type="primary" htmlType="submit" block loading={send.isPending} disabled={countdown.running}>
          {countdown.running ? t('auth.resetRetry', { n: countdown.left }) : t('auth.resetSubmit')}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0, textAlign: 'center' }}>
        <Link to="/login">{t('auth.backToLogin')}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
