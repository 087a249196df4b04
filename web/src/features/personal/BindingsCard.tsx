import { GithubOutlined, LoginOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Input, List, Modal, Space, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';
import { useStatus } from '../../shared/status.ts';
import { Turnstile } from '../../shared/Turnstile.tsx';
import { useCountdown } from '../../shared/useCountdown.ts';
import { type OAuthProvider, oauthUrl } from '../auth/oauth.ts';
import { TelegramWidget } from '../auth/TelegramWidget.tsx';
import { SELF_KEY, type SelfUser } from './api.ts';

function EmailBindModal({
  open,
  onClose,
  onBound,
}: {
  open: boolean;
  onClose: () => void;
  onBound: () => void;
}) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [turnstileToken, setTurnstileToken] = useState('');
  const { status } = useStatus();
  const countdown = useCountdown(30);

  const send = async () => {
    if (!email.trim()) return feedback.message?.error(t('auth.emailRequired'));
    if (status.turnstile_check && !turnstileToken) return feedback.message?.info(t('auth.turnstileWait'));
    try {
      await api.get('/api/verification', { email: email.trim(), turnstile: turnstileToken });
      feedback.message?.success(t('auth.codeSent'));
      countdown.start();
    } catch (err) {
      showError(err);
    }
  };
  const bind = async () => {
    if (!email.trim()) return feedback.message?.error(t('auth.emailRequired'));
    if (!code.trim()) return feedback.message?.error(t('auth.codeRequired'));
    setBusy(true);
    try {
      await api.get('/api/oauth/email/bind', { email: email.trim(), code: code.trim() });
      feedback.message?.success(t('personal.bound'));
      onBound();
      onClose();
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={t('personal.bindEmail')}
      open={open}
      onCancel={onClose}
      onOk={bind}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder={t('auth.emailPlaceholder')}
          />
          <Button onClick={send} disabled={countdown.running}>
            {countdown.running ? t('auth.resendIn', { n: countdown.left }) : t('auth.getCode')}
          </Button>
        </Space.Compact>
        {status.turnstile_check && status.turnstile_site_key && (
          <Turnstile siteKey={status.turnstile_site_key} onToken={setTurnstileToken} />
        )}
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          placeholder={t('auth.codePlaceholder')}
        />
      </Space>
    </Modal>
  );
}

function WechatBindModal({
  open,
  onClose,
  onBound,
}: {
  open: boolean;
  onClose: () => void;
  onBound: () => void;
}) {
  const { t } = useTranslation();
  const { status } = useStatus();
  const [code, setCode] = useState('');
  const bind = async () => {
    try {
      await api.get('/api/oauth/wechat/bind', { code: code.trim() });
      feedback.message?.success(t('personal.bound'));
      onBound();
      onClose();
    } catch (err) {
      showError(err);
    }
  };
  return (
    <Modal
      title={t('personal.bindWechat')}
      open={open}
      onCancel={onClose}
      onOk={bind}
      okButtonProps={{ disabled: !code.trim() }}
      destroyOnHidden
    >
      <Space orientation="vertical" style={{ width: '100%', alignItems: 'center' }}>
        {status.wechat_qrcode && (
          <img src={status.wechat_qrcode} alt="" style={{ width: 200, maxWidth: '100%' }} />
        )}
        <Typography.Text type="secondary">{t('auth.wechatHint')}</Typography.Text>
        <Input
          value={code}
          onChange={(e) => setCode(e.target.value)}
          placeholder={t('auth.codePlaceholder')}
        />
      </Space>
    </Modal>
  );
}

/** The sign-in methods tied to this account and how to add one. */
export function BindingsCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const { status } = useStatus();
  const queryClient = useQueryClient();
  const [modal, setModal] = useState<'email' | 'wechat' | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: SELF_KEY });

  const oauth = async (provider: OAuthProvider) => {
    try {
      const url = await oauthUrl(provider, status);
      if (!url) feedback.message?.warning(t('auth.notConfigured'));
      else window.location.assign(url);
    } catch (err) {
      showError(err);
    }
  };

  const rows: Array<{
    key: string;
    icon: ReactNode;
    label: string;
    value?: string;
    enabled: boolean;
    action: ReactNode;
  }> = [
    {
      key: 'email',
      icon: <MailOutlined />,
      label: t('auth.email'),
      value: user.email,
      enabled: true,
      action: (
        <Button onClick={() => setModal('email')}>
          {user.email ? t('personal.change') : t('personal.bind')}
        </Button>
      ),
    },
    {
      key: 'wechat',
      icon: <WechatOutlined />,
      label: t('personal.wechat'),
      value: user.wechat_id,
      enabled: !!status.wechat_login,
      action: (
        <Button disabled={!!user.wechat_id} onClick={() => setModal('wechat')}>
          {t('personal.bind')}
        </Button>
      ),
    },
    ...(
      [
        ['github', <GithubOutlined key="g" />, 'GitHub', user.github_id, status.github_oauth],
        ['oidc', <LoginOutlined key="o" />, 'OIDC', user.oidc_id, status.oidc_enabled],
        ['linuxdo', <LoginOutlined key="l" />, 'Linux DO', user.linux_do_id, status.linuxdo_oauth],
      ] as const
    ).map(([provider, icon, label, value, on]) => ({
      key: provider,
      icon,
      label,
      value: value || undefined,
      enabled: !!on,
      action: (
        <Button disabled={!!value} onClick={() => oauth(provider)}>
          {t('personal.bind')}
        </Button>
      ),
    })),
    {
      key: 'telegram',
      icon: <SendOutlined />,
      label: 'Telegram',
      value: user.telegram_id,
      enabled: !!status.telegram_oauth && !!status.telegram_bot_name,
      action: user.telegram_id ? (
        <Button disabled>{t('personal.bind')}</Button>
      ) : (
        <TelegramWidget
          botName={status.telegram_bot_name ?? ''}
          onAuth={(fields) =>
            api
              .get('/api/oauth/telegram/bind', fields)
              .then(() => {
                feedback.message?.success(t('personal.bound'));
                refresh();
              })
              .catch(showError)
          }
        />
      ),
    },
  ];

  return (
    <Card title={t('personal.bindings')}>
      <List
        dataSource={rows}
        renderItem={(row) => (
          <List.Item>
            <Flex justify="space-between" align="center" gap={12} style={{ width: '100%' }}>
              <Flex gap={12} align="center" style={{ minWidth: 0 }}>
                {row.icon}
                <div style={{ minWidth: 0 }}>
                  <div>{row.label}</div>
                  <Typography.Text type="secondary" ellipsis style={{ maxWidth: 220 }}>
                    {row.value || (row.enabled ? t('personal.unbound') : t('common.notEnabled'))}
                  </Typography.Text>
                </div>
              </Flex>
              {row.enabled ? row.action : <Button disabled>{t('personal.bind')}</Button>}
            </Flex>
          </List.Item>
        )}
      />
      <EmailBindModal open={modal === 'email'} onClose={() => setModal(null)} onBound={refresh} />
      <WechatBindModal open={modal === 'wechat'} onClose={() => setModal(null)} onBound={refresh} />
    </Card>
  );
}
