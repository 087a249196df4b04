import type { OptionStore } from './store.ts';

/**
 * Switches that need other options first: turning one on while its
 * prerequisites are blank is refused with the message below. `value` is the canonical new value.
 */
const PREREQUISITES: Record<string, { needs: string[]; message: string }> = {
  GitHubOAuthEnabled: {
    needs: ['GitHubClientId', 'GitHubClientSecret'],
    message: 'cannot enable GitHub OAuth: fill in the GitHub Client Id and Client Secret first',
  },
  'oidc.enabled': {
    needs: [
      'oidc.client_id',
      'oidc.client_secret',
      'oidc.authorization_endpoint',
      'oidc.token_endpoint',
      'oidc.user_info_endpoint',
    ],
    message: 'cannot enable OIDC login: fill in the OIDC Client Id, Client Secret and endpoints first',
  },
  LinuxDOOAuthEnabled: {
    needs: ['LinuxDOClientId', 'LinuxDOClientSecret'],
    message: 'cannot enable Linux DO OAuth: fill in the Linux DO Client Id and Client Secret first',
  },
  EmailDomainRestrictionEnabled: {
    needs: ['EmailDomainWhitelist'],
    message: 'cannot enable the e-mail domain restriction: fill in the allowed domains first',
  },
  WeChatAuthEnabled: {
    needs: ['WeChatServerAddress', 'WeChatServerToken'],
    message: 'cannot enable WeChat login: fill in the WeChat server address and token first',
  },
  TurnstileCheckEnabled: {
    needs: ['TurnstileSiteKey', 'TurnstileSecretKey'],
    message: 'cannot enable the Turnstile check: fill in the Turnstile site key and secret key first',
  },
  TelegramOAuthEnabled: {
    needs: ['TelegramBotToken', 'TelegramBotName'],
    message: 'cannot enable Telegram login: fill in the Telegram bot token and bot name first',
  },
};

/** The reason a change may not be made now, or undefined. */
export function prerequisiteProblem(options: OptionStore, key: string, value: string): string | undefined {
  const rule = PREREQUISITES[key];
  if (!rule || value !== 'true') return undefined;
  return rule.needs.some((k) => options.get(k).trim() === '') ? rule.message : undefined;
}
