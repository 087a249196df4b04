import {
  BREAKER_OPTIONS,
  type BreakerOptionKey,
  breakerOptionProblem,
  groupModelRateLimitProblem,
  groupRoutingModeProblem,
  RETENTION_OPTIONS,
  type RetentionOptionKey,
  retentionOptionProblem,
} from '@modelgate/shared';
import { assignmentProblem, policiesProblem } from '../../relay/guardrails/policy.ts';

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
  /** Extra rule on the canonical value: returns the problem in words, or undefined when the value is fine. */
  check?: (value: string) => string | undefined;
}

const b = (d: boolean): OptionDef => ({ type: 'bool', default: String(d) });
const i = (d: number): OptionDef => ({ type: 'int', default: String(d) });
const f = (d: number): OptionDef => ({ type: 'float', default: String(d) });
const s = (d = ''): OptionDef => ({ type: 'string', default: d });
const t = (d = ''): OptionDef => ({ type: 'text', default: d });
const j = (d: string): OptionDef => ({ type: 'json', default: d });
const secret = (): OptionDef => ({ type: 'string', default: '', secret: true });
const withCheck = (def: OptionDef, check: (value: string) => string | undefined): OptionDef => ({
  ...def,
  check,
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);
/** A JSON object whose values are numbers >= 0 (ratios by model or group). */
const ratioMap = (d: string) =>
  withCheck(j(d), (v) => {
    const m = JSON.parse(v);
    if (!isPlainObject(m)) return 'expected a JSON object of name to number';
    for (const [k, r] of Object.entries(m)) {
      if (typeof r !== 'number' || !Number.isFinite(r)) return `the value of ${k} must be a number`;
      if (r < 0) return `the value of ${k} must not be less than 0`;
    }
    return undefined;
  });
/** A JSON object of name to text (group descriptions, model headers). */
const textMap = (d: string) =>
  withCheck(j(d), (v) => {
    const m = JSON.parse(v);
    if (!isPlainObject(m)) return 'expected a JSON object';
    for (const [k, r] of Object.entries(m))
      if (typeof r !== 'string') return `the value of ${k} must be a string`;
    return undefined;
  });
const jsonObject = (d: string) =>
  withCheck(j(d), (v) => (isPlainObject(JSON.parse(v)) ? undefined : 'expected a JSON object'));
const jsonArray = (d: string) =>
  withCheck(j(d), (v) => (Array.isArray(JSON.parse(v)) ? undefined : 'expected a JSON array'));
/** {model: [fallback models]}: the problem in words, or undefined. */
const fallbackMapProblem = (m: unknown): string | undefined => {
  if (!isPlainObject(m)) return 'expected a JSON object of model to [fallback models]';
  for (const [k, list] of Object.entries(m))
    if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !x))
      return `the value of ${k} must be a list of model names`;
  return undefined;
};
const fallbackMap = () => withCheck(j('{}'), (v) => fallbackMapProblem(JSON.parse(v)));
const intAtLeast = (d: number, min: number) =>
  withCheck(i(d), (v) => (Number(v) < min ? `must be at least ${min}` : undefined));
const fraction = (d: number) =>
  withCheck(f(d), (v) => (Number(v) < 0.1 || Number(v) > 1 ? 'must be between 0.1 and 1' : undefined));
const oneOf = (d: string, allowed: string[]) =>
  withCheck(s(d), (v) => (allowed.includes(v) ? undefined : `must be one of ${allowed.join(', ')}`));
/** A circuit breaker setting within its range (@modelgate/shared BREAKER_OPTIONS). */
const breaker = (key: BreakerOptionKey) => {
  const r = BREAKER_OPTIONS[key];
  return withCheck(r.integer ? i(r.default) : f(r.default), (v) => breakerOptionProblem(key, Number(v)));
};
/** Days to keep usage logs or finished tasks, within RETENTION_OPTIONS' range (0 = forever). */
const retention = (key: RetentionOptionKey) =>
  withCheck(i(RETENTION_OPTIONS[key].default), (v) => retentionOptionProblem(key, Number(v)));
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const domainList = (d: string) =>
  withCheck(t(d), (v) => {
    const seen = new Set<string>();
    for (const raw of v.split(',')) {
      const domain = raw.trim().toLowerCase();
      if (!domain) continue;
      if (!DOMAIN.test(domain)) return `"${domain}" is not a domain name (example: gmail.com)`;
      if (seen.has(domain)) return `"${domain}" is listed twice`;
      seen.add(domain);
    }
    return undefined;
  });
/** {group: [max requests >= 0, max successful requests >= 1]}. */
const groupRateLimits = (d: string) =>
  withCheck(j(d), (v) => {
    const m = JSON.parse(v);
    if (!isPlainObject(m))
      return 'expected a JSON object of group to [max requests, max successful requests]';
    for (const [g, pair] of Object.entries(m)) {
      if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((n) => Number.isInteger(n)))
        return `${g}: expected [integer, integer]`;
      if (pair[0] < 0) return `${g}: max requests must be at least 0`;
      if (pair[1] < 1) return `${g}: max successful requests must be at least 1`;
    }
    return undefined;
  });

/** The scheme a browser would see: it drops spaces and control characters, so `java\tscript:` is `javascript:`. */
function schemeOf(v: string): string | undefined {
  let kept = '';
  for (const c of v) if (c.charCodeAt(0) > 0x20 && c.charCodeAt(0) !== 0x7f) kept += c;
  return /^([a-z][a-z0-9+.-]*):/i.exec(kept)?.[1]?.toLowerCase();
}
const SCRIPT_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob']);
/** A URL the console shows as a link or image: http(s), or a path on this site; empty = unset. */
const link = () =>
  withCheck(s(''), (v) => {
    const value = v.trim();
    if (!value) return undefined;
    if (value.startsWith('/') && value[1] !== '/' && value[1] !== '\\') return undefined;
    const scheme = schemeOf(value);
    return scheme === 'http' || scheme === 'https'
      ? undefined
      : 'must be an http(s) URL or a path starting with /';
  });
/** The chat apps list: [{name: link}], where a link may open an app (ama://, opencat://) but never runs script. */
const chatLinks = (d: string) =>
  withCheck(j(d), (v) => {
    const list = JSON.parse(v);
    if (!Array.isArray(list)) return 'expected a JSON array';
    for (const item of list) {
      if (!isPlainObject(item)) return 'each entry must be an object of name to link';
      for (const [name, url] of Object.entries(item)) {
        if (typeof url !== 'string') return `the link of ${name} must be a string`;
        const scheme = schemeOf(url);
        if (!scheme || SCRIPT_SCHEMES.has(scheme))
          return `the link of ${name} must be a URL that runs no script`;
      }
    }
    return undefined;
  });

const DEFAULT_CHATS = JSON.stringify([
  { 'ChatGPT Next Web': 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}' },
  {
    'Lobe Chat':
      'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}',
  },
  {
    'AI as Workspace':
      'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}',
  },
  { 'AMA 问天': 'ama://set-api-key?server={address}&key={key}' },
  { OpenCat: 'opencat://team/join?domain={address}&token={key}' },
]);

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
  QuotaPerUnit: withCheck(f(500000), (v) => (Number(v) <= 0 ? 'must be greater than 0' : undefined)),
  RetryTimes: intAtLeast(0, 0),
  DisplayInCurrencyEnabled: b(true),
  DisplayTokenStatEnabled: b(true),
  DefaultCollapseSidebar: b(false),
  DemoSiteEnabled: b(false),
  SelfUseModeEnabled: b(false),
  QuotaForNewUser: intAtLeast(0, 0),
  QuotaForInviter: intAtLeast(0, 0),
  QuotaForInvitee: intAtLeast(0, 0),
  QuotaRemindThreshold: i(1000),
  PreConsumedQuota: intAtLeast(500, 0),
  SystemName: s('New API'),
  Logo: link(),
  Footer: t(''),
  Notice: t(''),
  About: t(''),
  HomePageContent: t(''),
  TopUpLink: link(),
  'general_setting.docs_link': link(),
  // Logging
  LogConsumeEnabled: b(true),
  LogRetentionDays: retention('LogRetentionDays'),
  TaskRetentionDays: retention('TaskRetentionDays'),
  AuditLogRetentionDays: retention('AuditLogRetentionDays'),
  // Channel health
  ChannelDisableThreshold: f(5),
  AutomaticDisableChannelEnabled: b(false),
  AutomaticEnableChannelEnabled: b(false),
  AutomaticDisableKeywords: t(''),
  // Minutes between scheduled compatibility checks of every enabled channel (0 = off)
  ChannelCompatCheckInterval: intAtLeast(0, 0),
  // Routing inside a priority tier, per group, and the circuit breaker for flaky upstreams
  GroupRoutingMode: withCheck(j('{}'), (v) => groupRoutingModeProblem(JSON.parse(v))),
  CircuitBreakerWindowSeconds: breaker('CircuitBreakerWindowSeconds'),
  CircuitBreakerMinRequests: breaker('CircuitBreakerMinRequests'),
  CircuitBreakerErrorRate: breaker('CircuitBreakerErrorRate'),
  CircuitBreakerCooldownSeconds: breaker('CircuitBreakerCooldownSeconds'),
  CircuitBreakerProbeRequests: breaker('CircuitBreakerProbeRequests'),
  // Lets server-side fetches (upstream model lists, balances, tests) reach private and loopback addresses
  'fetch_setting.allow_private_ip': b(false),
  // Lets channel and OAuth fetches reach link-local and cloud metadata addresses (169.254.169.254 and the like)
  'fetch_setting.allow_link_local': b(false),
  // Pricing
  ModelRatio: ratioMap('{}'),
  CompletionRatio: ratioMap('{}'),
  CacheRatio: ratioMap('{}'),
  CreateCacheRatio: ratioMap('{}'),
  ModelPrice: ratioMap('{}'),
  // Audio tokens (realtime): audio input vs text input, audio output vs audio input, by model
  AudioRatio: ratioMap('{}'),
  AudioCompletionRatio: ratioMap('{}'),
  GroupRatio: ratioMap('{"default":1,"vip":1,"svip":1}'),
  UserUsableGroups: textMap('{"default":"默认分组","vip":"vip分组"}'),
  // Payment (Epay-compatible online top-up)
  ServerAddress: s(''),
  PayAddress: s(''),
  EpayId: s(''),
  EpayKey: secret(),
  Price: f(7.3),
  MinTopUp: i(1),
  TopupGroupRatio: ratioMap('{}'),
  CustomCallbackAddress: s(''),
  // --- every other key the console reads or sets, with the defaults operators of this kind of gateway expect
  // OIDC
  'oidc.enabled': b(false),
  'oidc.client_id': s(''),
  'oidc.client_secret': secret(),
  'oidc.well_known': s(''),
  'oidc.authorization_endpoint': s(''),
  'oidc.token_endpoint': s(''),
  'oidc.user_info_endpoint': s(''),
  // E-mail restrictions
  EmailDomainRestrictionEnabled: b(false),
  EmailAliasRestrictionEnabled: b(false),
  EmailDomainWhitelist: domainList(
    'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com',
  ),
  // SMTP
  SMTPServer: s(''),
  SMTPPort: withCheck(i(587), (v) =>
    Number(v) < 1 || Number(v) > 65535 ? 'must be a port number (1-65535)' : undefined,
  ),
  SMTPAccount: s(''),
  SMTPFrom: s(''),
  SMTPToken: secret(),
  SMTPSSLEnabled: b(false),
  // Proxy worker
  WorkerUrl: s(''),
  WorkerValidKey: secret(),
  WorkerAllowHttpImageRequestEnabled: b(false),
  // WeChat, bot check, Telegram, Linux DO, GitHub
  WeChatServerAddress: s(''),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: link(),
  TurnstileSiteKey: s(''),
  TurnstileSecretKey: secret(),
  TelegramBotToken: secret(),
  TelegramBotName: s(''),
  LinuxDOClientId: s(''),
  LinuxDOClientSecret: secret(),
  GitHubClientId: s(''),
  GitHubClientSecret: secret(),
  // Drawing and tasks
  DrawingEnabled: b(true),
  TaskEnabled: b(true),
  MjNotifyEnabled: b(false),
  MjAccountFilterEnabled: b(false),
  MjForwardUrlEnabled: b(true),
  MjModeClearEnabled: b(false),
  MjActionCheckSuccessEnabled: b(true),
  // Sensitive words
  CheckSensitiveEnabled: b(true),
  CheckSensitiveOnPromptEnabled: b(true),
  CheckSensitiveOnCompletionEnabled: b(false),
  StopOnSensitiveEnabled: b(true),
  SensitiveWords: t('test_sensitive'),
  // Guardrails (relay/guardrails): named policies, assigned by group ("*" = every other group) and by token id
  'guardrails.policies': withCheck(j('{}'), policiesProblem),
  'guardrails.group_policies': withCheck(j('{}'), assignmentProblem),
  'guardrails.token_policies': withCheck(j('{}'), assignmentProblem),
  // Dashboard data, chats, streaming
  DataExportEnabled: b(true),
  DataExportInterval: intAtLeast(5, 1),
  DataExportDefaultTime: oneOf('hour', ['hour', 'day', 'week']),
  Chats: chatLinks(DEFAULT_CHATS),
  StreamCacheQueueLength: intAtLeast(0, 0),
  // Per-user model request rate limits (relay)
  ModelRequestRateLimitEnabled: b(false),
  ModelRequestRateLimitDurationMinutes: intAtLeast(1, 0),
  ModelRequestRateLimitCount: intAtLeast(0, 0),
  ModelRequestRateLimitSuccessCount: intAtLeast(1000, 1),
  ModelRequestRateLimitGroup: groupRateLimits('{}'),
  // Requests and tokens per minute by group and model (relay/admit/limits; {} = none)
  GroupModelRateLimit: withCheck(j('{}'), (v) => groupModelRateLimitProblem(JSON.parse(v))),
  // Provider options
  'gemini.safety_settings': textMap('{"default":"OFF","HARM_CATEGORY_CIVIC_INTEGRITY":"BLOCK_NONE"}'),
  'gemini.version_settings': textMap('{"default":"v1beta","gemini-1.0-pro":"v1"}'),
  'gemini.supported_imagine_models': jsonArray(
    '["gemini-2.0-flash-exp-image-generation","gemini-2.0-flash-exp"]',
  ),
  'gemini.thinking_adapter_enabled': b(false),
  'gemini.thinking_adapter_budget_tokens_percentage': fraction(0.6),
  'claude.model_headers_settings': jsonObject('{}'),
  'claude.thinking_adapter_enabled': b(true),
  'claude.default_max_tokens': ratioMap('{"default":8192}'),
  'claude.thinking_adapter_budget_tokens_percentage': fraction(0.8),
  'global.pass_through_request_enabled': b(false),
  // Hosted tools a channel of another format has no equivalent of: dropped (and named in a response header)
  // instead of refused with a 400.
  'global.drop_unsupported_hosted_tools_enabled': b(false),
  // What a converted call sends as the end-user id (relay/call/end-user-id.ts): nothing, or a keyed hash.
  'global.converted_user_id': oneOf('none', ['none', 'hash']),
  // US$ per 1,000 web searches an upstream runs with its hosted search tool (Anthropic's and OpenAI's list
  // price), billed on top of the tokens; 0 = searches are not billed.
  'global.web_search_price_per_1k': withCheck(f(10), (v) =>
    Number(v) < 0 ? 'must be 0 or more' : undefined,
  ),
  // The response cache (relay/response-cache/): groups it is on for (comma list, `*` = all), whether a request
  // may turn it on with `X-ModelGate-Cache: on`, the TTL, the size cap, the price of a hit as a share of the
  // answer's price, entries shared by every user, and answers with several choices kept too.
  'response_cache.groups': s(''),
  'response_cache.request_header_enabled': b(false),
  'response_cache.ttl_seconds': intAtLeast(3600, 1),
  'response_cache.max_mb': intAtLeast(64, 1),
  'response_cache.hit_ratio': withCheck(f(0), (v) =>
    Number(v) < 0 || Number(v) > 1 ? 'must be between 0 and 1' : undefined,
  ),
  'response_cache.shared_across_users': b(false),
  'response_cache.multiple_choices_enabled': b(false),
  // Model fallbacks (relay/route/fallbacks/): per model {model: [fallback, ...]}, per group {group: {model: [...]}}
  // (a group's entry wins), and whether a request may name its own with `models: [...]`.
  'model_fallbacks.models': fallbackMap(),
  'model_fallbacks.groups': withCheck(j('{}'), (v) => {
    const m = JSON.parse(v);
    if (!isPlainObject(m)) return 'expected a JSON object of group to {model: [fallback models]}';
    for (const [g, inner] of Object.entries(m)) {
      const problem = fallbackMapProblem(inner);
      if (problem) return `${g}: ${problem}`;
    }
    return undefined;
  }),
  'model_fallbacks.client_enabled': b(false),
  'general_setting.ping_interval_enabled': b(false),
  'general_setting.ping_interval_seconds': intAtLeast(60, 1),
  // Chat links shown in the status object (chat_link, chat_link2)
  ChatLink: link(),
  ChatLink2: link(),
};

export const isKnownOption = (key: string) => Object.hasOwn(OPTIONS, key);

/** The definition of an option key; undefined for unknown keys, including the object prototype's own names. */
export const optionDef = (key: string): OptionDef | undefined =>
  Object.hasOwn(OPTIONS, key) ? OPTIONS[key] : undefined;
