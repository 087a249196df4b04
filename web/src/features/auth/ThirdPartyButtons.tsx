import { GithubOutlined, LoginOutlined, WechatOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Divider, Flex, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';
import type { SessionUser } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { type OAuthProvider, oauthUrl } from './oauth.ts';
import { startSession } from './session.ts';
import { TelegramWidget } from './TelegramWidget.tsx';

/** The third-party sign-in buttons the status object enables on the login page. */
export function ThirdPartyButtons() {
  const { t } = useTranslation();
  const { status } = useStatus();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [wechatOpen, setWechatOpen] = useState(false);
  const [wechatCode, setWechatCode] = useState('');
  const [busy, setBusy] = useState(false);

  const providers: Array<[OAuthProvider, boolean | undefined, React.ReactNode]> = [
    ['github', status.github_oauth, <GithubOutlined key="g" />],
    ['oidc', status.oidc_enabled, <LoginOutlined key="o" />],
    ['linuxdo', status.linuxdo_oauth, <LoginOutlined key="l" />],
  ];
  const shown = providers.filter(([, on]) => on);
  const telegram = status.telegram_oauth && status.telegram_bot_name;
  if (!shown.length && !status.wechat_login && !telegram) return null;

  const finish = (user: SessionUser) => {
    startSession(queryClient, user);
    feedback.message?.success(t('auth.loginSuccess'));
    navigate('/');
  };

  const go = async (provider: OAuthProvider) => {
    try {
      const url = await oauthUrl(provider, status);
      if (!url) feedback.message?.warning(t('auth.notConfigured'));
      else window.location.assign(url);
    } catch (err) {
      showError(err);
    }
  };

  const wechatLogin = async () => {
    setBusy(true);
    try {
      finish(await api.get<SessionUser>('/api/oauth/wechat', { code: wechatCode }));
      setWechatOpen(false);
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Divider plain>
        <Typography.Text type="secondary">{t('auth.orWith')}</Typography.Text>
      </Divider>
      <Flex vertical gap={8}>
        {shown.map(([provider, , icon]) => (
          <Button key={provider} block icon={icon} onClick={() => go(provider)}>
            {t(`auth.${provider}`)}
          </Button>
        ))}
        {status.wechat_login && (
          <Button block icon={<WechatOutlined />} onClick={() => setWechatOpen(true)}>
            {t('auth.wechat')}
          </Button>
        )}
        {telegram && (
          <Flex justify="center">
            <TelegramWidget
              botName={status.telegram_bot_name!}
              onAuth={(fields) =>
                api.get<SessionUser>('/api/oauth/telegram/login', fields).then(finish).catch(showError)
              }
            />
          </Flex>
        )}
      </Flex>
      <Modal
        title={t('auth.wechatTitle')}
        open={wechatOpen}
        onCancel={() => setWechatOpen(false)}
        onOk={wechatLogin}
        okButtonProps={{ disabled: !wechatCode.trim(), loading: busy }}
        okText={t('auth.login')}
      >
        <Space orientation="vertical" style={{ width: '100%', alignItems: 'center' }}>
          {status.wechat_qrcode && (
            <img src={status.wechat_qrcode} alt="" style={{ width: 200, maxWidth: '100%' }} />
          )}
          <Typography.Text type="secondary">{t('auth.wechatHint')}</Typography.Text>
          <Input
            value={wechatCode}
            onChange={(e) => setWechatCode(e.target.value)}
            placeholder={t('auth.codePlaceholder')}
          />
        </Space>
      </Modal>
    </>
  );
}
