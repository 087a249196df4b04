import {
  GlobalOutlined,
  LogoutOutlined,
  MenuOutlined,
  MoonOutlined,
  SunOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Dropdown, Flex, Menu, Tag, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { api } from '../../api/client.ts';
import type { Lang } from '../../i18n/index.ts';
import { showSuccess } from '../../shared/feedback.tsx';
import { clearStoredUser, useSession } from '../../shared/session.ts';
import { canRegister, useStatus } from '../../shared/status.ts';
import { useThemeMode } from '../../shared/theme.tsx';
import { useIsMobile } from '../../shared/useIsMobile.ts';
import { NewYearEgg } from './NewYearEgg.tsx';

/** Where "Console" leads: the dashboard when it is on, else the token list. */
export function consolePath(enableDataExport: boolean | undefined) {
  return enableDataExport ? '/detail' : '/token';
}

export function useLogout() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return async () => {
    try {
      await api.get('/api/user/logout');
    } catch {
      // the local session ends either way
    }
    clearStoredUser();
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'status' });
    showSuccess(t('header.loggedOut'));
    navigate('/login');
  };
}

export function TopBar({ onOpenMenu }: { onOpenMenu: () => void }) {
  const { t, i18n } = useTranslation();
  const { token } = theme.useToken();
  const { status } = useStatus();
  const { user } = useSession();
  const { mode, setMode } = useThemeMode();
  const isMobile = useIsMobile();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const logout = useLogout();
  const systemName = status.system_name || 'New API';
  // Before first-run setup there is nowhere to go but /setup.
  const setupPending = status.setup === false;

  const links = [
    { key: '/', label: t('nav.home') },
    { key: consolePath(status.enable_data_export), label: t('nav.console') },
    { key: '/pricing', label: t('nav.pricing') },
    ...(status.docs_link ? [{ key: 'docs', label: t('nav.docs') }] : []),
    { key: '/about', label: t('nav.about') },
  ];
  const activeLink =
    pathname === '/' ? '/' : (links.find((l) => l.key !== '/' && pathname.startsWith(l.key))?.key ?? '');

  return (
    <Flex align="center" gap={isMobile ? 4 : 12} style={{ height: '100%' }}>
      {isMobile && (
        <Button type="text" aria-label={t('nav.menu')} icon={<MenuOutlined />} onClick={onOpenMenu} />
      )}
      <Link to="/" style={{ display: 'flex', alignItems: 'center', gap: 8, minWidth: 0, flexShrink: 1 }}>
        <img
          src={status.logo || '/logo.png'}
          alt=""
          width={28}
          height={28}
          style={{ borderRadius: '50%', flexShrink: 0 }}
        />
        <Typography.Text strong ellipsis style={{ fontSize: 16, maxWidth: isMobile ? 120 : 220 }}>
          {systemName}
        </Typography.Text>
      </Link>
      {status.self_use_mode_enabled && <Tag color="purple">{t('header.selfUse')}</Tag>}
      {status.demo_site_enabled && <Tag color="blue">{t('header.demo')}</Tag>}
      {!isMobile && !setupPending && (
        <Menu
          mode="horizontal"
          selectedKeys={[activeLink]}
          items={links}
          style={{ flex: 1, minWidth: 0, borderBottom: 'none', background: 'transparent' }}
          onClick={({ key }) => {
            if (key === 'docs') window.open(status.docs_link, '_blank', 'noopener');
            else navigate(key);
          }}
        />
      )}
      <Flex align="center" gap={4} style={{ marginInlineStart: 'auto', flexShrink: 0 }}>
        <NewYearEgg />
        <Button
          type="text"
          aria-label={mode === 'dark' ? t('header.themeLight') : t('header.themeDark')}
          title={mode === 'dark' ? t('header.themeLight') : t('header.themeDark')}
          icon={mode === 'dark' ? <SunOutlined /> : <MoonOutlined />}
          onClick={() => setMode(mode === 'dark' ? 'light' : 'dark')}
        />
        <Dropdown
          trigger={['click']}
          menu={{
            selectable: true,
            selectedKeys: [i18n.language],
            items: [
              { key: 'zh', label: '中文' },
              { key: 'en', label: 'English' },
            ],
            onClick: ({ key }) => i18n.changeLanguage(key as Lang),
          }}
        >
          <Button type="text" aria-label={t('header.language')} icon={<GlobalOutlined />} />
        </Dropdown>
        {setupPending ? null : user ? (
          <Dropdown
            trigger={['click']}
            menu={{
              items: [
                { key: 'personal', icon: <UserOutlined />, label: t('nav.personal') },
                { key: 'logout', icon: <LogoutOutlined />, label: t('header.logout') },
              ],
              onClick: ({ key }) => (key === 'logout' ? logout() : navigate('/personal')),
            }}
          >
            <Button type="text" data-testid="user-menu" style={{ paddingInline: 4 }}>
              <Avatar size="small" style={{ background: token.colorPrimary }}>
                {(user.display_name || user.username || '?').slice(0, 1).toUpperCase()}
              </Avatar>
              {!isMobile && (
                <span style={{ maxWidth: 120, overflow: 'hidden', textOverflow: 'ellipsis' }}>
                  {user.username}
                </span>
              )}
            </Button>
          </Dropdown>
        ) : (
          <>
            <Button
              type={isMobile ? 'primary' : 'default'}
              size={isMobile ? 'small' : 'middle'}
              onClick={() => navigate('/login')}
            >
              {t('header.login')}
            </Button>
            {!isMobile && canRegister(status) && (
              <Button type="primary" onClick={() => navigate('/register')}>
                {t('header.register')}
              </Button>
            )}
          </>
        )}
      </Flex>
    </Flex>
  );
}
