import { Button, Result, Spin } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation } from 'react-router';
import { useSession } from '../shared/session.ts';
import { useStatus } from '../shared/status.ts';

/** No stored user -> /login. */
export function RequireLogin({ children }: { children: ReactNode }) {
  const { isLoggedIn } = useSession();
  const location = useLocation();
  if (!isLoggedIn)
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return children;
}

/** Admin pages: a visitor goes to /login, a non-admin user sees "not allowed". The server checks again. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { isLoggedIn, isAdmin } = useSession();
  if (!isLoggedIn) return <Navigate to="/login" replace />;
  if (!isAdmin)
    return (
      <Result
        status="403"
        title={t('guard.forbiddenTitle')}
        subTitle={t('guard.forbidden')}
        extra={
          <Link to="/">
            <Button type="primary">{t('common.backHome')}</Button>
          </Link>
        }
      />
    );
  return children;
}

/** Until first-run setup is done every page but /setup goes to /setup. */
export function SetupGate({ children }: { children: ReactNode }) {
  const { status, isFetched, isError } = useStatus();
  const { pathname } = useLocation();
  // A cached "setup done" paints at once; "not done" is only trusted from the live answer.
  if (!isFetched && !isError && status.setup !== true && pathname !== '/setup')
    return <Spin size="large" style={{ display: 'block', margin: '96px auto' }} />;
  if (isFetched && status.setup === false && pathname !== '/setup') return <Navigate to="/setup" replace />;
  return children;
}
