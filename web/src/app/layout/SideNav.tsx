import { Menu } from 'antd';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { showError } from '../../shared/feedback.tsx';
import { useSession } from '../../shared/session.ts';
import { useStatus } from '../../shared/status.ts';
import { chatNames, selectedKey, sideNavItems } from './navItems.tsx';

/** The console's side navigation; `onNavigate` lets the phone drawer close after a choice. */
export function SideNav({ collapsed, onNavigate }: { collapsed?: boolean; onNavigate?: () => void }) {
  const { t } = useTranslation();
  const { status } = useStatus();
  const { isAdmin } = useSession();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const items = useMemo(() => sideNavItems(t, status, isAdmin), [t, status, isAdmin]);
  const chatsInvalid = chatNames(status.chats) === 'invalid';
  useEffect(() => {
    if (chatsInvalid) showError(new Error(t('errors.chatsParse')));
  }, [chatsInvalid, t]);
  return (
    <Menu
      mode="inline"
      inlineCollapsed={collapsed}
      selectedKeys={[selectedKey(pathname)]}
      items={items}
      style={{ borderInlineEnd: 'none' }}
      onClick={({ key }) => {
        navigate(key);
        onNavigate?.();
      }}
    />
  );
}
