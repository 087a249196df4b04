import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { feedback } from '../../shared/feedback.tsx';
import type { SessionUser } from '../../shared/session.ts';
import { canRegister, useStatus } from '../../shared/status.ts';
import { writeString } from '../../shared/storage.ts';
import { Turnstile } from '../../shared/Turnstile.tsx';
import { AuthCard } from './AuthCard.tsx';
import { AFF_KEY, startSession } from './session.ts';
import { ThirdPartyButtons } from './ThirdPartyButtons.tsx';

/** The password the reference product ships its root account with; logging in with it earns a warning. */
const WELL_KNOWN_DEFAULT_PASSWORD = '123456';

interface LoginForm {
  username: string;
  password: string;
}

export default function LoginPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const { status } = useStatus();
  const [turnstileToken, setTurnstileToken] = useState('');
  const expired = params.get('expired') === 'true';

  useEffect(() => {
    const aff = params.get('aff');
    if (aff) writeString(AFF_KEY, aff);
  }, [params]);

  const login = useMutation({
    mutationFn: (values: LoginForm) =>
      api.post<SessionUser>(withQuery('/api/user/login', { turnstile: turnstileToken }), {
        username: values.username.trim(),
        password: values.password,
      }),
    onSuccess: (user, values) => {
      startSession(queryClient, user);
      feedback.message?.success(t('auth.loginSuccess'));
      if (values.username.trim() === 'root' && values.password === WELL_KNOWN_DEFAULT_PASSWORD) {
        feedback.modal?.error({
          title: t('auth.defaultPasswordTitle'),
          content: t('auth.defaultPassword'),
          centered: true,
        });
      }
      navigate('/token');
    },
  });

  const onFinish = (values: LoginForm) => {
    if (status.turnstile_check && !turnstileToken) {
      feedback.message?.info(t('auth.turnstileWait'));
      return;
    }
    login.mutate(values);
  };

  const required = { required: true, whitespace: true, message: t('auth.needUserPass') };

  return (
    <AuthCard title={t('auth.loginTitle')}>
      {expired && <Alert type="warning" showIcon style={{ marginBottom: 16 }} title={t('errors.expired')} />}
      {status.password_login === false && (
        <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('auth.passwordLoginOff')} />
      )}
      <Form<LoginForm>
        hidden={status.password_login === false}
        name="login"
        layout="vertical"
        onFinish={onFinish}
        requiredMark={false}
      >
        <Form.Item name="username" label={t('auth.usernameOrEmail')} rules={[required]}>
          <Input prefix={<UserOutlined />} autoComplete="username" placeholder={t('auth.usernameOrEmail')} />
        </Form.Item>
        <Form.Item name="password" label={t('auth.password')} rules={[required]}>
          <Input.Password
            prefix={<LockOutlined />}
            autoComplete="current-password"
            placeholder={t('auth.password')}
          />
        </Form.Item>
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onToken={setTurnstileToken} />
        )}
        <Button type="primary" htmlType="submit" block loading={login.isPending}>
          {t('auth.login')}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0, textAlign: 'center' }}>
        <Typography.Text type="secondary">{t('auth.forgot')}</Typography.Text>{' '}
        <Link to="/reset">{t('auth.resetIt')}</Link>
        {canRegister(status) && (
          <>
            <br />
            <Typography.Text type="secondary">{t('auth.noAccount')}</Typography.Text>{' '}
            <Link to="/register">{t('auth.register')}</Link>
          </>
        )}
      </Typography.Paragraph>
      <ThirdPartyButtons />
    </AuthCard>
  );
}
