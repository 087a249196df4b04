import { createHmac } from 'node:crypto';
import { renderQuota } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import { guardedFetch, userUrlPolicy } from '../../infra/ssrf.ts';
import type { UserEntry } from '../table-cache/users.ts';

const LIMIT_COUNT = 2;
const LIMIT_WINDOW_MS = 10 * 60 * 1000;

export interface Notifier {
  /** Called after a charge: warns the user once the balance falls below their threshold. */
  afterCharge(user: UserEntry, before: number, after: number): void;
}

async function webhook(ctx: AppContext, user: UserEntry, payload: Record<string, unknown>) {
  const url = user.setting.webhook_url;
  if (!url) return;
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (user.setting.webhook_secret)
    headers['x-webhook-signature'] = createHmac('sha256', user.setting.webhook_secret)
      .update(body)
      .digest('hex');
  // The user chose the URL: it goes through the SSRF guard like every other server-side fetch.
  const res = await guardedFetch(url, {
    method: 'POST',
    headers,
    body,
    timeoutMs: 5000,
    policy: userUrlPolicy(ctx.options),
  });
  if (!res.ok) throw new Error(`webhook answered ${res.status}`);
}

async function email(ctx: AppContext, user: UserEntry, subject: string, text: string) {
  const to = user.setting.notification_email || user.email;
  const host = ctx.options.get('SMTPServer');
  if (!to || !host) return;
  const { createTransport } = await import('nodemailer');
  const port = Number(ctx.options.get('SMTPPort')) || 587;
  const transport = createTransport({
    host,
    port,
    secure: ctx.options.get('SMTPSSLEnabled') === 'true' || port === 465,
    auth: ctx.options.get('SMTPAccount')
      ? { user: ctx.options.get('SMTPAccount'), pass: ctx.options.get('SMTPToken') }
      : undefined,
  });
  await transport.sendMail({
    from: ctx.options.get('SMTPFrom') || ctx.options.get('SMTPAccount'),
    to,
    subject,
    text,
  });
}

/**
 * Sends one notice to a user the way they chose in their settings: a webhook (`type`, `title`, `content`,
 * `values`, `timestamp`, signed as the quota warning is) or an e-mail.
 */
export function notifyUser(
  ctx: AppContext,
  user: UserEntry,
  notice: { type: string; title: string; content: string; values?: unknown[] },
): Promise<void> {
  if (user.setting.notify_type === 'webhook')
    return webhook(ctx, user, { values: [], ...notice, timestamp: Math.floor(Date.now() / 1000) });
  return email(ctx, user, notice.title, notice.content);
}

/**
 * Quota warnings: when a charge takes a user's balance from at or above their threshold (setting
 * quota_warning_threshold, else QuotaRemindThreshold) to below it, send a webhook (signed with
 * X-Webhook-Signature = hex HMAC-SHA256 of the body when the user set a secret) or an e-mail (when the SMTP
 * options are set). At most two notices per user and kind per ten minutes.
 */
export function createNotifier(ctx: AppContext): Notifier {
  const sent = new Map<string, number[]>();

  const allowed = (key: string) => {
    const now = Date.now();
    const recent = (sent.get(key) ?? []).filter((t) => now - t < LIMIT_WINDOW_MS);
    if (recent.length >= LIMIT_COUNT) return false;
    recent.push(now);
    sent.set(key, recent);
    return true;
  };

  return {
    afterCharge(user, before, after) {
      const threshold =
        Number(user.setting.quota_warning_threshold) || ctx.options.int('QuotaRemindThreshold');
      if (!(before >= threshold && after < threshold)) return;
      const type = user.setting.notify_type === 'webhook' ? 'webhook' : 'email';
      if (!allowed(`${user.id}:${type}`)) return;
      const remaining = renderQuota(after, {
        quotaPerUnit: ctx.options.float('QuotaPerUnit'),
        displayInCurrency: ctx.options.bool('DisplayInCurrencyEnabled'),
      });
      const title = 'Your quota is running low';
      const content = `Your remaining quota is ${remaining}, below your warning threshold. Please top up.`;
      const job =
        type === 'webhook'
          ? webhook(ctx, user, {
              type: 'quota_exceed',
              title,
              content,
              values: [remaining],
              timestamp: Math.floor(Date.now() / 1000),
            })
          : email(ctx, user, title, content);
      job.catch((err) => ctx.log.warn({ err: String(err), user: user.id }, 'quota warning not delivered'));
    },
  };
}
