import { type ComponentType, type LazyExoticComponent, lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RequireAdmin, RequireLogin } from './guards.tsx';
import { AppLayout } from './layout/AppLayout.tsx';
import NotFoundPage from './NotFoundPage.tsx';

type Page = LazyExoticComponent<ComponentType>;
type Access = 'public' | 'login' | 'admin';

// Each feature's page is the default export of one file (see docs/CONTRIBUTING.md, web conventions).
const HomePage = lazy(() => import('../features/home/HomePage.tsx'));
const AboutPage = lazy(() => import('../features/about/AboutPage.tsx'));
const SetupPage = lazy(() => import('../features/setup/SetupPage.tsx'));
const LoginPage = lazy(() => import('../features/auth/LoginPage.tsx'));
const RegisterPage = lazy(() => import('../features/auth/RegisterPage.tsx'));
const ResetPage = lazy(() => import('../features/auth/ResetPage.tsx'));
const ResetConfirmPage = lazy(() => import('../features/auth/ResetConfirmPage.tsx'));
const OAuthCallbackPage = lazy(() => import('../features/auth/OAuthCallbackPage.tsx'));
const ChannelsPage = lazy(() => import('../features/channels/ChannelsPage.tsx'));
const TokensPage = lazy(() => import('../features/tokens/TokensPage.tsx'));
const PlaygroundPage = lazy(() => import('../features/playground/PlaygroundPage.tsx'));
const RedemptionsPage = lazy(() => import('../features/redemptions/RedemptionsPage.tsx'));
const UsersPage = lazy(() => import('../features/users/UsersPage.tsx'));
const SettingsPage = lazy(() => import('../features/settings/SettingsPage.tsx'));
const PersonalPage = lazy(() => import('../features/personal/PersonalPage.tsx'));
const WalletPage = lazy(() => import('../features/wallet/WalletPage.tsx'));
const LogsPage = lazy(() => import('../features/logs/LogsPage.tsx'));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage.tsx'));
const MidjourneyPage = lazy(() => import('../features/midjourney/MidjourneyPage.tsx'));
const TasksPage = lazy(() => import('../features/tasks/TasksPage.tsx'));
const PricingPage = lazy(() => import('../features/pricing/PricingPage.tsx'));
const AuditPage = lazy(() => import('../features/audit/AuditPage.tsx'));
const ChatPage = lazy(() => import('../features/chat/ChatPage.tsx'));
const Chat2LinkPage = lazy(() => import('../features/chat/Chat2LinkPage.tsx'));

/**
 * The route table. /channel/add, /channel/edit/:id and /user/edit are not public pages: the channel pages are
 * admin pages and /user/edit (own profile) needs a login, because nobody else can use them.
 */
const TABLE: Array<[path: string, page: Page, access: Access]> = [
  ['/', HomePage, 'public'],
  ['/setup', SetupPage, 'public'],
  ['/login', LoginPage, 'public'],
  ['/register', RegisterPage, 'public'],
  ['/reset', ResetPage, 'public'],
  ['/user/reset', ResetConfirmPage, 'public'],
  ['/oauth/github', OAuthCallbackPage, 'public'],
  ['/oauth/oidc', OAuthCallbackPage, 'public'],
  ['/oauth/linuxdo', OAuthCallbackPage, 'public'],
  ['/pricing', PricingPage, 'public'],
  ['/about', AboutPage, 'public'],
  ['/chat/:id?', ChatPage, 'public'],
  ['/token', TokensPage, 'login'],
  ['/playground', PlaygroundPage, 'login'],
  ['/personal', PersonalPage, 'login'],
  ['/topup', WalletPage, 'login'],
  ['/log', LogsPage, 'login'],
  ['/detail', DashboardPage, 'login'],
  ['/midjourney', MidjourneyPage, 'login'],
  ['/task', TasksPage, 'login'],
  ['/chat2link', Chat2LinkPage, 'login'],
  ['/user/edit', UsersPage, 'login'],
  ['/channel', ChannelsPage, 'admin'],
  ['/channel/add', ChannelsPage, 'admin'],
  ['/channel/edit/:id', ChannelsPage, 'admin'],
  ['/redemption', RedemptionsPage, 'admin'],
  ['/user', UsersPage, 'admin'],
  ['/user/edit/:id', UsersPage, 'admin'],
  ['/setting', SettingsPage, 'admin'],
  ['/audit', AuditPage, 'admin'],
];

function guarded(Page: Page, access: Access) {
  if (access === 'admin')
    return (
      <RequireAdmin>
        <Page />
      </RequireAdmin>
    );
  if (access === 'login')
    return (
      <RequireLogin>
        <Page />
      </RequireLogin>
    );
  return <Page />;
}

export const routes: RouteObject[] = [
  {
    element: <AppLayout />,
    children: [
      ...TABLE.map(([path, Page, access]) => ({ path, element: guarded(Page, access) })),
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
