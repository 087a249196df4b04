import { useQueryClient } from '@tanstack/react-query';
import { Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { requestEnvelope, withQuery } from '../../api/client.ts';
import { feedback, showError } from '../../shared/feedback.tsx';
import type { SessionUser } from '../../shared/session.ts';
import { startSession } from './session.ts';

/** /oauth/github|oidc|linuxdo: exchanges the code; 'bind' means an account binding. */
export default function OAuthCallbackPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const [failed, setFailed] = useState(false);
  const started = useRef(false);
  const provider = pathname.split('/')[2] ?? '';

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const path = withQuery(`/api/oauth/${provider}`, {
      code: params.get('code'),
      state: params.get('state'),
    });
    requestEnvelope<SessionUser>('GET', path)
      .then((res) => {
        if (!res.success) throw new Error(res.message || t('auth.oauthFailed'));
        if (res.message === 'bind') {
          feedback.message?.success(t('auth.bindSuccess'));
          navigate('/personal', { replace: true });
        } else {
          startSession(queryClient, res.data as SessionUser);
          feedback.message?.success(t('auth.loginSuccess'));
          navigate('/token', { replace: true });
        }
      })
      .catch((err) => {
        setFailed(true);
        showError(err);
        setTimeout(() => navigate('/personal', { replace: true }), 1500);
      });
  }, [provider, params, navigate, queryClient, t]);

  if (failed) return <Result status="error" title={t('auth.oauthFailed')} />;
  return (
    <Spin size="large" tip={t('auth.processing')}>
      <div style={{ height: 240 }} />
    </Spin>
  );
}
