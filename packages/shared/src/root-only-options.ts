/**
 * Options only root may write: whoever controls them controls sign-in, where mails and their links go,
 * payments, OAuth providers, the SSRF policy or the fetch worker, and could take over the root account.
 * The server refuses them to admins; the console shows them read-only to admins.
 */
export const ROOT_ONLY_OPTION_KEYS: readonly string[] = [
  // Sign-in and registration
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'EmailVerificationEnabled',
  'RegisterEnabled',
  'TurnstileCheckEnabled',
  'TurnstileSiteKey',
  'TurnstileSecretKey',
  'EmailDomainRestrictionEnabled',
  'EmailAliasRestrictionEnabled',
  'EmailDomainWhitelist',
  // OAuth providers
  'GitHubOAuthEnabled',
  'GitHubClientId',
  'GitHubClientSecret',
  'WeChatAuthEnabled',
  'WeChatServerAddress',
  'WeChatServerToken',
  'WeChatAccountQRCodeImageURL',
  'TelegramOAuthEnabled',
  'TelegramBotToken',
  'TelegramBotName',
  'LinuxDOOAuthEnabled',
  'LinuxDOClientId',
  'LinuxDOClientSecret',
  // Mail delivery and the links put into mails and redirects
  'SMTPServer',
  'SMTPPort',
  'SMTPAccount',
  'SMTPFrom',
  'SMTPToken',
  'SMTPSSLEnabled',
  'ServerAddress',
  // Payment credentials and endpoints
  'PayAddress',
  'EpayId',
  'EpayKey',
  'CustomCallbackAddress',
  // Server-side fetches: the SSRF policy and the fetch worker
  'WorkerUrl',
  'WorkerValidKey',
  'WorkerAllowHttpImageRequestEnabled',
  // The audit log's retention: whoever shortens it erases the record of what they did
  'AuditLogRetentionDays',
];

/** Every `oidc.*` (OAuth provider) and `fetch_setting.*` (SSRF policy) key is root-only too. */
const ROOT_ONLY_PREFIXES = ['oidc.', 'fetch_setting.'];

const rootOnly = new Set(ROOT_ONLY_OPTION_KEYS);
export const isRootOnlyOption = (key: string) =>
  rootOnly.has(key) || ROOT_ONLY_PREFIXES.some((p) => key.startsWith(p));
