import type { AppContext } from '../../context.ts';
import { ok } from '../../infra/envelope.ts';
import { requireAdmin } from '../auth/guard.ts';
import type { Feature } from '../index.ts';
import { setupState } from '../setup/state.ts';
import { onlineTopupEnabled, paymentSettings } from '../topup/settings.ts';
import { checkRelease } from './release.ts';
import { START_TIME, VERSION } from './version.ts';

/**
 * The public status object (the console caches it):
 * what the console needs before login. Only public values: client ids and site keys, never secrets.
 */
export async function statusObject(ctx: AppContext) {
  const o = ctx.options;
  const setup = await setupState(ctx);
  return {
    version: VERSION,
    version_check: ctx.config.versionCheckUrl !== '',
    start_time: START_TIME,
    system_name: o.get('SystemName'),
    logo: o.get('Logo'),
    footer_html: o.get('Footer'),
    server_address: o.get('ServerAddress'),
    docs_link: o.get('general_setting.docs_link'),
    quota_per_unit: o.float('QuotaPerUnit'),
    display_in_currency: o.bool('DisplayInCurrencyEnabled'),
    display_token_stat: o.bool('DisplayTokenStatEnabled'),
    default_collapse_sidebar: o.bool('DefaultCollapseSidebar'),
    enable_batch_update: true,
    enable_drawing: o.bool('DrawingEnabled'),
    enable_task: o.bool('TaskEnabled'),
    enable_data_export: o.bool('DataExportEnabled'),
    data_export_default_time: o.get('DataExportDefaultTime'),
    mj_notify_enabled: o.bool('MjNotifyEnabled'),
    chats: o.json('Chats'),
    chat_link: o.get('ChatLink'),
    chat_link2: o.get('ChatLink2'),
    // Login and registration
    password_login: o.bool('PasswordLoginEnabled'),
    password_register: o.bool('PasswordRegisterEnabled'),
    register_enabled: o.bool('RegisterEnabled'),
    email_verification: o.bool('EmailVerificationEnabled'),
    turnstile_check: o.bool('TurnstileCheckEnabled'),
    turnstile_site_key: o.get('TurnstileSiteKey'),
    github_oauth: o.bool('GitHubOAuthEnabled'),
    github_client_id: o.get('GitHubClientId'),
    oidc_enabled: o.bool('oidc.enabled'),
    oidc_client_id: o.get('oidc.client_id'),
    oidc_authorization_endpoint: o.get('oidc.authorization_endpoint'),
    linuxdo_oauth: o.bool('LinuxDOOAuthEnabled'),
    linuxdo_client_id: o.get('LinuxDOClientId'),
    wechat_login: o.bool('WeChatAuthEnabled'),
    wechat_qrcode: o.get('WeChatAccountQRCodeImageURL'),
    telegram_oauth: o.bool('TelegramOAuthEnabled'),
    telegram_bot_name: o.get('TelegramBotName'),
    // Wallet
    top_up_link: o.get('TopUpLink'),
    price: o.float('Price'),
    min_topup: o.int('MinTopUp'),
    enable_online_topup: onlineTopupEnabled(paymentSettings(o)),
    // Modes and setup
    demo_site_enabled: o.bool('DemoSiteEnabled'),
    self_use_mode_enabled: o.bool('SelfUseModeEnabled'),
    setup: setup.status,
    root_init: setup.root_init,
    database_type: setup.database_type,
  };
}

export const statusFeature: Feature = (app, ctx: AppContext) => {
  app.get('/status', async () => ok(await statusObject(ctx)));
  /** The version check: the latest public release beside the running version. */
  app.get('/status/release', { preHandler: requireAdmin(ctx) }, async () => ok(await checkRelease(ctx)));
};
