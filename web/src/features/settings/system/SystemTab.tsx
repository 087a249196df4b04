import type { OptionMap } from '../api.ts';
import type { FieldDef } from '../fields.ts';
import { OptionSection } from '../OptionSection.tsx';
import { DOMAIN_PATTERN } from '../validators.ts';
import { OidcDiscover } from './OidcDiscover.tsx';

const text = (key: string, placeholder?: string): FieldDef => ({ key, kind: 'text', placeholder });
const secret = (key: string): FieldDef => ({ key, kind: 'secret' });
const sw = (key: string, extra: Partial<FieldDef> = {}): FieldDef => ({ key, kind: 'switch', ...extra });

function checkDomains(value: unknown): string | undefined {
  const list = Array.isArray(value) ? value.map(String) : [];
  if (list.some((d) => !DOMAIN_PATTERN.test(d))) return 'settings.error.domain';
  if (new Set(list.map((d) => d.toLowerCase())).size !== list.length) return 'settings.error.domainDuplicate';
  return undefined;
}

const SERVER: FieldDef[] = [
  { ...text('ServerAddress', 'https://gateway.example.com'), span: 24, help: 'settings.help.ServerAddress' },
];
const WORKER: FieldDef[] = [
  text('WorkerUrl', 'https://'),
  secret('WorkerValidKey'),
  sw('WorkerAllowHttpImageRequestEnabled'),
];
const PAYMENT: FieldDef[] = [
  text('PayAddress', 'https://'),
  text('EpayId'),
  secret('EpayKey'),
  text('CustomCallbackAddress', 'https://'),
  { key: 'Price', kind: 'number', min: 0, step: 0.01 },
  { key: 'MinTopUp', kind: 'number', min: 1 },
  { key: 'TopupGroupRatio', kind: 'json' },
];
const LOGIN: FieldDef[] = [
  sw('PasswordLoginEnabled', { confirmOff: 'settings.confirm.passwordLoginOff' }),
  sw('PasswordRegisterEnabled'),
  sw('EmailVerificationEnabled'),
  sw('RegisterEnabled'),
  sw('GitHubOAuthEnabled'),
  sw('oidc.enabled'),
  sw('LinuxDOOAuthEnabled'),
  sw('WeChatAuthEnabled'),
  sw('TelegramOAuthEnabled'),
  sw('TurnstileCheckEnabled'),
];
const EMAIL_DOMAINS: FieldDef[] = [
  sw('EmailDomainRestrictionEnabled', { span: 12 }),
  sw('EmailAliasRestrictionEnabled', { span: 12 }),
  {
    key: 'EmailDomainWhitelist',
    kind: 'tags',
    span: 24,
    check: checkDomains,
    placeholder: 'example.com',
    help: 'settings.help.EmailDomainWhitelist',
  },
];
const SMTP: FieldDef[] = [
  text('SMTPServer', 'smtp.example.com'),
  { key: 'SMTPPort', kind: 'number', min: 1, max: 65535 },
  text('SMTPAccount'),
  text('SMTPFrom'),
  secret('SMTPToken'),
  sw('SMTPSSLEnabled'),
];
const OIDC: FieldDef[] = [
  text('oidc.client_id'),
  secret('oidc.client_secret'),
  {
    ...text('oidc.well_known', 'https://idp.example.com/.well-known/openid-configuration'),
    span: 24,
    check: (v) =>
      String(v ?? '').trim() && !/^https?:\/\//i.test(String(v).trim())
        ? 'settings.error.wellKnown'
        : undefined,
  },
  text('oidc.authorization_endpoint'),
  text('oidc.token_endpoint'),
  text('oidc.user_info_endpoint'),
];
const GITHUB: FieldDef[] = [text('GitHubClientId'), secret('GitHubClientSecret')];
const LINUXDO: FieldDef[] = [text('LinuxDOClientId'), secret('LinuxDOClientSecret')];
const WECHAT: FieldDef[] = [
  text('WeChatServerAddress', 'https://'),
  secret('WeChatServerToken'),
  text('WeChatAccountQRCodeImageURL', 'https://'),
];
const TELEGRAM: FieldDef[] = [text('TelegramBotName'), secret('TelegramBotToken')];
const TURNSTILE: FieldDef[] = [text('TurnstileSiteKey'), secret('TurnstileSecretKey')];

/** Server address, worker, payment, sign-in methods and their providers, e-mail rules and SMTP. */
export function SystemTab({ options }: { options: OptionMap }) {
  return (
    <>
      <OptionSection title="settings.section.server" fields={SERVER} options={options} />
      <OptionSection title="settings.section.worker" fields={WORKER} options={options} />
      <OptionSection
        title="settings.section.payment"
        fields={PAYMENT}
        options={options}
        validate={() => (options.ServerAddress?.trim() ? undefined : 'settings.error.serverAddressFirst')}
      />
      <OptionSection title="settings.section.login" fields={LOGIN} options={options} />
      <OptionSection title="settings.section.emailDomains" fields={EMAIL_DOMAINS} options={options} />
      <OptionSection title="settings.section.smtp" fields={SMTP} options={options} />
      <OptionSection title="settings.section.oidc" fields={OIDC} options={options}>
        {(form) => <OidcDiscover form={form} />}
      </OptionSection>
      <OptionSection title="settings.section.github" fields={GITHUB} options={options} />
      <OptionSection title="settings.section.linuxdo" fields={LINUXDO} options={options} />
      <OptionSection title="settings.section.wechat" fields={WECHAT} options={options} />
      <OptionSection title="settings.section.telegram" fields={TELEGRAM} options={options} />
      <OptionSection title="settings.section.turnstile" fields={TURNSTILE} options={options} />
    </>
  );
}
