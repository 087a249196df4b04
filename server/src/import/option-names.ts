import type { Flavor } from './detect.ts';

/**
 * Source options whose key or meaning differs here. A translation returns the options to set here, or a
 * sentence saying why the source value cannot be carried over.
 */
type Translation = (value: string) => Array<[string, string]> | string;

const rename =
  (key: string): Translation =>
  (value) => [[key, value]];

const SHARED: Record<string, Translation> = {
  // new-api replaced the currency switch with a display type; tokens is the only one that shows raw quota.
  'general_setting.quota_display_type': (v) => [
    ['DisplayInCurrencyEnabled', v === 'TOKENS' ? 'false' : 'true'],
  ],
  'general_setting.docs_link': rename('general_setting.docs_link'),
};

const ONE_API: Record<string, Translation> = {
  OidcEnabled: rename('oidc.enabled'),
  OidcClientId: rename('oidc.client_id'),
  OidcClientSecret: rename('oidc.client_secret'),
  OidcWellKnown: rename('oidc.well_known'),
  OidcAuthorizationEndpoint: rename('oidc.authorization_endpoint'),
  OidcTokenEndpoint: rename('oidc.token_endpoint'),
  OidcUserinfoEndpoint: rename('oidc.user_info_endpoint'),
  Theme: () => 'the console has one theme (light and dark follow the browser)',
  ApproximateTokenEnabled: () => 'tokens are always counted exactly when the upstream reports no usage',
  MessagePusherAddress: () => 'Message Pusher notifications do not exist here (e-mail and webhooks do)',
  MessagePusherToken: () => 'Message Pusher notifications do not exist here (e-mail and webhooks do)',
  LarkClientId: () => 'Lark sign-in does not exist here',
  LarkClientSecret: () => 'Lark sign-in does not exist here',
};

/** The translation of a source option key; own entries only, so `__proto__` or `constructor` find none. */
export function translateOption(flavor: Flavor, key: string): Translation | undefined {
  if (Object.hasOwn(SHARED, key)) return SHARED[key];
  return flavor === 'one-api' && Object.hasOwn(ONE_API, key) ? ONE_API[key] : undefined;
}

/** Keys that name the object prototype's own members: refused as option keys, as the console refuses them. */
export const isPrototypeKey = (key: string) => key === '__proto__' || key in Object.prototype;
