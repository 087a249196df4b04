/**
 * Every option key the console knows, with its type and default. Values are strings in the database;
 * `type` says how a value is checked on PUT and read by the server.
 * `secret` options are never sent back to the browser.
 */
export type OptionType = 'string' | 'bool' | 'int' | 'float' | 'json' | 'text';

export interface OptionDef {
  type: OptionType;
  default: string;
  secret?: boolean;
}

const b = (d: boolean): OptionDef => ({ type: 'bool', default: String(d) });
const i = (d: number): OptionDef => ({ type: 'int', default: String(d) });
const f = (d: number): OptionDef => ({ type: 'float', default: String(d) });
const s = (d = ''): OptionDef => ({ type: 'string', default: d });
const t = (d = ''): OptionDef => ({ type: 'text', default: d });
const j = (d: string): OptionDef => ({ type: 'json', default: d });
const secret = (): OptionDef => ({ type: 'string', default: '', secret: true });

export const OPTIONS: Record<string, OptionDef> = {
  // Login and register
  PasswordLoginEnabled: b(true),
  PasswordRegisterEnabled: b(true),
  EmailVerificationEnabled: b(false),
  RegisterEnabled: b(true),
  TurnstileCheckEnabled: b(false),
  GitHubOAuthEnabled: b(false),
  WeChatAuthEnabled: b(false),
  TelegramOAuthEnabled: b(false),
  LinuxDOOAuthEnabled: b(false),
  // Display and quota
  QuotaPerUnit: f(500000),
  RetryTimes: i(0),
  DisplayInCurrencyEnabled: b(true),
  DisplayTokenStatEnabled: b(true),
  DefaultCollapseSidebar: b(false),
  DemoSiteEnabled: b(false),
  SelfUseModeEnabled: b(false),
  QuotaForNewUser: i(0),
  QuotaForInviter: i(0),
  QuotaForInvitee: i(0),
  QuotaRemindThreshold: i(1000),
  PreConsumedQuota: i(500),
  SystemName: s('New API'),
  Logo: s(''),
  Footer: t(''),
  Notice: t(''),
  About: t(''),
  HomePageContent: t(''),
  TopUpLink: s(''),
  'general_setting.docs_link': s(''),
  // Logging
  LogConsumeEnabled: b(true),
  // Channel health
  ChannelDisableThreshold: f(5),
  AutomaticDisableChannelEnabled: b(false),
  AutomaticEnableChannelEnabled: b(false),
  AutomaticDisableKeywords: t(''),
  // Lets server-side fetches (upstream model lists, balances, tests) reach private and loopback addresses
  'fetch_setting.allow_private_ip': b(false),
  // Pricing
  ModelRatio: j('{}'),
  CompletionRatio: j('{}'),
  CacheRatio: j('{}'),
  ModelPrice: j('{}'),
  GroupRatio: j('{"default":1,"vip":1,"svip":1}'),
  UserUsableGroups: j('{"default":"默认分组","vip":"vip分组"}'),
  // Payment (Epay-compatible online top-up)
  ServerAddress: s(''),
  PayAddress: s(''),
  EpayId: s(''),
  EpayKey: secret(),
  Price: f(7.3),
  MinTopUp: i(1),
  TopupGroupRatio: j('{}'),
  CustomCallbackAddress: s(''),
};

export const isKnownOption = (key: string) => Object.hasOwn(OPTIONS, key);
