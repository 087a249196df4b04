import {
  ApiOutlined,
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  CalendarOutlined,
  CommentOutlined,
  ExperimentOutlined,
  GiftOutlined,
  KeyOutlined,
  PictureOutlined,
  SettingOutlined,
  TeamOutlined,
  UnorderedListOutlined,
  UserOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import type { MenuProps } from 'antd';
import type { TFunction } from 'i18next';
import type { Status } from '../../shared/status.ts';

type Item = Required<MenuProps>['items'][number];

/** Custom chat entries: `chats` is a list of `{name: link template}`; a broken value yields none. */
export function chatNames(chats: unknown): string[] | 'invalid' {
  let list = chats;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return 'invalid';
    }
  }
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return 'invalid';
  return list.map((entry) =>
    entry && typeof entry === 'object' ? (Object.keys(entry)[0] ?? '') : String(entry),
  );
}

/** The side navigation; keys are the paths. */
export function sideNavItems(t: TFunction, status: Status, isAdmin: boolean): Item[] {
  const chats = chatNames(status.chats);
  const chatItems =
    chats === 'invalid'
      ? []
      : chats.map((name, i) => ({ key: `/chat/${i}`, label: name || `${t('nav.chat')} ${i + 1}` }));
  const items: Item[] = [{ key: '/playground', icon: <ExperimentOutlined />, label: t('nav.playground') }];
  if (chatItems.length)
    items.push({ key: 'chat', icon: <CommentOutlined />, label: t('nav.chat'), children: chatItems });
  items.push({
    type: 'group',
    key: 'console',
    label: t('nav.sectionConsole'),
    children: [
      status.enable_data_export
        ? { key: '/detail', icon: <BarChartOutlined />, label: t('nav.dashboard') }
        : null,
      { key: '/token', icon: <KeyOutlined />, label: t('nav.tokens') },
      { key: '/log', icon: <UnorderedListOutlined />, label: t('nav.logs') },
      status.enable_drawing
        ? { key: '/midjourney', icon: <PictureOutlined />, label: t('nav.drawing') }
        : null,
      status.enable_task ? { key: '/task', icon: <CalendarOutlined />, label: t('nav.tasks') } : null,
    ].filter(Boolean) as Item[],
  });
  if (isAdmin)
    items.push({
      type: 'group',
      key: 'admin',
      label: t('nav.sectionAdmin'),
      children: [
        { key: '/channel', icon: <ApiOutlined />, label: t('nav.channels') },
        { key: '/redemption', icon: <GiftOutlined />, label: t('nav.redemptions') },
        { key: '/user', icon: <TeamOutlined />, label: t('nav.users') },
        { key: '/audit', icon: <AuditOutlined />, label: t('nav.audit') },
        { key: '/setting', icon: <SettingOutlined />, label: t('nav.settings') },
      ],
    });
  items.push({
    type: 'group',
    key: 'personal',
    label: t('nav.sectionPersonal'),
    children: [
      { key: '/topup', icon: <WalletOutlined />, label: t('nav.wallet') },
      { key: '/personal', icon: <UserOutlined />, label: t('nav.personal') },
    ],
  });
  return items;
}

/** The menu key that matches a path: the longest item path that is a prefix of it. */
export function selectedKey(pathname: string): string {
  if (pathname.startsWith('/chat/')) return pathname;
  const first = `/${pathname.split('/')[1] ?? ''}`;
  return first;
}

export const consoleIcon = <AppstoreOutlined />;
