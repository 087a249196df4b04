import { LockOutlined, MailOutlined, UserOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, withQuery } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';
import { registrationOpen, useStatus } from '../../shared/status.ts';
import { readString, writeString } from '../../shared/storage.ts';
import { Turnstile } from '../../shared/Turnstile.tsx';
import { useCountdown } from '../../shared/useCountdown.ts';
import { AuthCard } from './AuthCard.tsx';
import { AFF_KEY } from './session.ts';
import { ThirdPartyButtons } from './ThirdPartyButtons.tsx';

interface RegisterForm {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
}

export default function RegisterPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { status } = useStatus();
  const [form] = Form.useForm<RegisterForm>();
  const [turnstileToken, setTurnstileToken] = useState('');
  const [sending, setSending] = useState(false);
  const countdown = useCountdown(30);
  const emailOn = !!status.email_verification;

  useEffect(() => {
    const aff = params.get('aff');
    if (aff) writeString(AFF_KEY, aff);
  }, [params]);

  const turnstileReady = () => {
    if (status.turnstile_check && !turnstileToken) {
      feedback.message?.info(t('auth.turnstileWait'));
      return false;
    }
    return true;
  };

  const sendCode = async () => {
    const email = (form.getFieldValue('email') as string | undefined)?.trim();
    if (!email) {
      feedback.message?.error(t('auth.emailRequired'));
      return;
    }
    if (!turnstileReady()) return;
    setSending(true);
    try {
      await api.get('/api/verification', { email, turnstile: turnstileToken });
      feedback.message?.success(t('auth.codeSent'));
      countdown.start();
    } catch (err) {
      showError(err);
    } finally {
      setSending(false);
    }
  };

  const register = useMutation({
    mutationFn: (values: RegisterForm) =>
      api.post(withQuery('/api/user/register', { turnstile: turnstileToken }), {
        username: values.username.trim(),
        password: values.password,
        password2: values.password2,
        email: emailOn ? values.email?.trim() : undefined,
        verification_code: emailOn ? values.verification_code?.trim() : undefined,
        aff_code: params.get('aff') || readString(AFF_KEY) || undefined,
      }),
    onSuccess: () => {
      feedback.message?.success(t('auth.registerSuccess'));
      navigate('/login');
    },
  });

  return (
    <AuthCard title={t('auth.registerTitle')}>
      {!registrationOpen(status) && (
        <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('auth.registerOff')} />
      )}
      <Form<RegisterForm>
        hidden={!registrationOpen(status)}
        form={form}
        name="register"
        layout="vertical"
        requiredMark={false}
        onFinish={(values) => turnstileReady() && register.mutate(values)}
      >
        <Form.Item
          name="username"
          label={t('auth.username')}
          rules={[{ required: true, whitespace: true, message: t('auth.needUserPass') }]}
        >
          <Input
            prefix={<UserOutlined />}
            autoComplete="username"
            placeholder={t('auth.usernamePlaceholder')}
            maxLength={12}
          />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('auth.password')}
          rules={[
            { required: true, message: t('auth.needUserPass') },
            { min: 8, message: t('auth.passwordMin') },
          ]}
        >
          <Input.Password
            prefix={<LockOutlined />}
            autoComplete="new-password"
            placeholder={t('auth.passwordPlaceholder')}
            maxLength={20}
          />
        </Form.Item>
        <Form.Item
          name="password2"
          label={t('auth.confirmPassword')}
          dependencies={['password']}
          rules={[
            { required: true, message: t('auth.mismatch') },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                !value || value === getFieldValue('password')
                  ? Promise.resolve()
                  : Promise.reject(new Error(t('auth.mismatch'))),
            }),
          ]}
        >
          <Input.Password
            prefix={<LockOutlined />}
            autoComplete="new-password"
            placeholder={t('auth.confirmPassword')}
            maxLength={20}
          />
        </Form.Item>
        {emailOn && (
          <>
            <Form.Item label={t('auth.email')} required>
              <Space.Compact style={{ width: '100%' }}>
                <Form.Item
                  name="email"
                  noStyle
                  rules={[{ required: true, type: 'email', message: t('auth.emailRequired') }]}
                >
                  <Input
                    prefix={<MailOutlined />}
                    type="email"
                    autoComplete="email"
                    placeholder={t('auth.emailPlaceholder')}
                  />
                </Form.Item>
                <Button onClick={sendCode} loading={sending} disabled={countdown.running}>
                  {countdown.running ? t('auth.resendIn', { n: countdown.left }) : t('auth.getCode')}
                </Button>
              </Space.Compact>
            </Form.Item>
            <Form.Item
              name="verification_code"
              label={t('auth.code')}
              rules={[{ required: true, whitespace: true, message: t('auth.codeRequired') }]}
            >
              <Input placeholder={t('auth.codePlaceholder')} autoComplete="one-time-code" />
            </Form.Item>
          </>
        )}
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onToken={setTurnstileToken} />
        )}
        <Button type="primary" htmlType="submit" block loading={register.isPending}>
          {t('auth.register')}
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0, textAlign: 'center' }}>
        <Typography.Text type="secondary">{t('auth.haveAccount')}</Typography.Text>{' '}
        <Link to="/login">{t('auth.login')}</Link>
      </Typography.Paragraph>
      <ThirdPartyButtons />
    </AuthCard>
  );
}
