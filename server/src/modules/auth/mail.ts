import type { AppContext } from '../../context.ts';
import { ApiError } from '../../infra/envelope.ts';

/** SMTP is usable when a server and a sender are set (options SMTPServer, SMTPAccount or SMTPFrom). */
export function smtpConfigured(ctx: AppContext): boolean {
  const o = ctx.options;
  return (
    o.get('SMTPServer').trim() !== '' &&
    (o.get('SMTPFrom').trim() !== '' || o.get('SMTPAccount').trim() !== '')
  );
}

/**
 * Sends one HTML e-mail through the configured SMTP server (implicit TLS on port 465 or with SMTPSSLEnabled).
 * Throws a 400 naming the problem when SMTP is not configured, and a 502 when the server refuses.
 */
export async function sendMail(ctx: AppContext, to: string, subject: string, html: string): Promise<void> {
  if (!smtpConfigured(ctx)) {
    throw new ApiError('e-mail is not set up on this server (SMTP); ask the administrator to configure it');
  }
  const o = ctx.options;
  const port = o.int('SMTPPort') || 587;
  const account = o.get('SMTPAccount').trim();
  // Loaded on first use: most gateways never send mail, and the module is large.
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: o.get('SMTPServer').trim(),
    port,
    secure: port === 465 || o.bool('SMTPSSLEnabled'),
    auth: account ? { user: account, pass: o.get('SMTPToken') } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({ from: o.get('SMTPFrom').trim() || account, to, subject, html });
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'sending e-mail failed');
    throw new ApiError('the e-mail could not be sent; try again later or ask the administrator', 502);
  } finally {
    transport.close();
  }
}
