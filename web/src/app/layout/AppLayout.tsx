import { Drawer, Layout, Menu, Spin, theme } from 'antd';
import { Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useNavigate } from 'react-router';
import { feedback } from '../../shared/feedback.tsx';
import { useStatus } from '../../shared/status.ts';
import { useStoredString, writeString } from '../../shared/storage.ts';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { SetupGate } from '../guards.tsx';
import { AppFooter } from './AppFooter.tsx';
import { SideNav } from './SideNav.tsx';
import { consolePath, TopBar } from './TopBar.tsx';

const COLLAPSE_KEY = 'default_collapse_sidebar';

/** The side bar is hidden on home, chat and setup paths. */
export function siderHidden(pathname: string) {
  return pathname === '/' || pathname === '/home' || pathname === '/setup' || pathname.startsWith('/chat');
}

function useDocumentIdentity() {
  const { status, isError } = useStatus();
  const { t } = useTranslation();
  useEffect(() => {
    document.title = status.system_name || 'New API';
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (icon) icon.href = status.logo || '/logo.png';
  }, [status.system_name, status.logo]);
  useEffect(() => {
    if (isError) feedback.message?.error({ key: 'status-error', content: t('errors.connect') });
  }, [isError, t]);
}

export function AppLayout() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const isMobile = useIsMobile();
  const { status } = useStatus();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const collapsed = useStoredString(COLLAPSE_KEY) === 'true';
  useDocumentIdentity();

  const showSider = !isMobile && !siderHidden(pathname);
  const fullBleed = pathname.startsWith('/chat/') || pathname === '/chat';

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header
        style={{
          position: 'sticky',
          top: 0,
          zIndex: 100,
          paddingInline: isMobile ? 8 : 16,
          background: token.colorBgContainer,
          borderBottom: `1px solid ${token.colorBorderSecondary}`,
          height: 56,
          lineHeight: '56px',
        }}
      >
        <TopBar onOpenMenu={() => setDrawerOpen(true)} />
      </Layout.Header>
      <Layout>
        {showSider && (
          <Layout.Sider
            theme="light"
            collapsible
            collapsed={collapsed}
            onCollapse={(value) => writeString(COLLAPSE_KEY, String(value))}
            width={200}
            collapsedWidth={60}
            style={{
              background: token.colorBgContainer,
              borderInlineEnd: `1px solid ${token.colorBorderSecondary}`,
              position: 'sticky',
              top: 56,
              height: 'calc(100vh - 56px)',
              overflow: 'auto',
            }}
          >
            <SideNav collapsed={collapsed} />
          </Layout.Sider>
        )}
        <Layout>
          <Layout.Content style={{ padding: fullBleed ? 0 : isMobile ? 8 : 24, minWidth: 0 }}>
            <SetupGate>
              <Suspense fallback={<Spin size="large" style={{ display: 'block', margin: '96px auto' }} />}>
                <Outlet />
              </Suspense>
            </SetupGate>
          </Layout.Content>
          {!fullBleed && (
            <Layout.Footer
              style={{ padding: isMobile ? '12px 8px' : '16px 24px', background: 'transparent' }}
            >
              <AppFooter />
            </Layout.Footer>
          )}
        </Layout>
      </Layout>
      {isMobile && (
        <Drawer
          placement="left"
          open={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          size={260}
          title={status.system_name || 'New API'}
          styles={{ body: { padding: 0 } }}
        >
          <Menu
            mode="inline"
            selectable={false}
            style={{ borderInlineEnd: 'none' }}
            items={[
              { key: '/', label: t('nav.home') },
              { key: consolePath(status.enable_data_export), label: t('nav.console') },
              { key: '/pricing', label: t('nav.pricing') },
              ...(status.docs_link ? [{ key: 'docs', label: t('nav.docs') }] : []),
              { key: '/about', label: t('nav.about') },
            ]}
            onClick={({ key }) => {
              setDrawerOpen(false);
              if (key === 'docs') window.open(status.docs_link, '_blank', 'noopener');
              else navigate(key);
            }}
          />
          <SideNav onNavigate={() => setDrawerOpen(false)} />
        </Drawer>
      )}
    </Layout>
  );
}
