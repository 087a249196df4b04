import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { startFakeSmtp } from './support/fake-smtp.ts';
import { startServer, type TestServer } from './support/server.ts';

/** The text of a received message with quoted-printable soft breaks and escapes undone. */
const bodyText = (raw: string) =>
  raw
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('e-mail codes, binding and password reset', () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startFakeSmtp>>;
  let anon: ConsoleClient;

  beforeAll(async () => {
    server = await startServer();
    smtp = await startFakeSmtp();
    anon = new ConsoleClient(server.url);
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const configureSmtp = async () => {
    const o = server.ctx.options;
    await o.set('SMTPServer', '127.0.0.1');
    await o.set('SMTPPort', String(smtp.port));
    await o.set('SMTPAccount', 'mailer@example.com');
    await o.set('SMTPToken', 'smtp-password');
  };
  const lastMail = () => smtp.mails[smtp.mails.length - 1];

  it('says clearly that SMTP is not configured, and sends nothing', async () => {
    const r = await anon.get('/api/verification?email=new@example.com');
    expect(r).toMatchObject({
      status: 400,
      message: 'e-mail is not set up on this server (SMTP); ask the administrator to configure it',
    });
    expect(smtp.mails).toHaveLength(0);
  });

  it('mails a 6-digit code that registers once', async () => {
    await configureSmtp();
    await server.ctx.options.set('EmailVerificationEnabled', 'true');
    const r = await anon.get('/api/verification?email=new@example.com');
    expect(r).toMatchObject({ status: 200, success: true, message: 'verification code sent' });
    const mail = lastMail();
    expect(mail.to).toEqual(['new@example.com']);
    expect(mail.from).toBe('mailer@example.com');
    expect(mail.auth).toBe('mailer@example.com:smtp-password');
    const code = /<strong>(\d{6})<\/strong>/.exec(bodyText(mail.data))?.[1];
    expect(code).toBeDefined();

    const body = {
      username: 'mailed',
      password: 'password123',
      email: 'new@example.com',
      verification_code: code,
    };
    expect((await anon.post('/api/user/register', body)).success).toBe(true);
    const reuse = await anon.post('/api/user/register', { ...body, username: 'mailed2' });
    expect(reuse).toMatchObject({ status: 400, message: 'the verification code is wrong or has expired' });
    await server.ctx.options.set('EmailVerificationEnabled', 'false');
  });

  it('checks the address: format, domain whitelist, aliases, already used', async () => {
    const sent = smtp.mails.length;
    expect((await anon.get('/api/verification?email=not-an-address')).message).toBe('invalid email address');
    expect((await anon.get('/api/verification')).status).toBe(400);
    await server.ctx.options.set('EmailDomainRestrictionEnabled', 'true');
    const domain = await anon.get('/api/verification?email=someone@elsewhere.org');
    expect(domain.status).toBe(400);
    expect(domain.message).toMatch(/^the administrator only accepts e-mail addresses at: gmail.com/);
    await server.ctx.options.set('EmailDomainRestrictionEnabled', 'false');
    await server.ctx.options.set('EmailAliasRestrictionEnabled', 'true');
    const alias = await anon.get('/api/verification?email=me%2Bspam@example.com');
    expect(alias).toMatchObject({
      status: 400,
      message: 'the administrator does not accept e-mail aliases (a + or . before the @)',
    });
    await server.ctx.options.set('EmailAliasRestrictionEnabled', 'false');
    const used = await anon.get('/api/verification?email=new@example.com');
    expect(used).toMatchObject({ status: 400, message: 'this e-mail address is already in use' });
    expect(smtp.mails.length).toBe(sent);
  });

  it('binds an e-mail to the logged-in user with a mailed code', async () => {
    const u = await loginAs(server, { username: 'binder' });
    expect((await anon.get('/api/oauth/email/bind?email=b@example.com&code=1')).status).toBe(401);
    await u.get('/api/verification?email=b@example.com');
    const code = /<strong>(\d{6})<\/strong>/.exec(bodyText(lastMail().data))?.[1] as string;
    const wrong = await u.get(
      `/api/oauth/email/bind?email=b@example.com&code=${code === '000000' ? '111111' : '000000'}`,
    );
    expect(wrong).toMatchObject({ status: 400, message: 'the verification code is wrong or has expired' });
    const bound = await u.get(`/api/oauth/email/bind?email=b@example.com&code=${code}`);
    expect(bound.success).toBe(true);
    expect((await u.get('/api/user/self')).data.email).toBe('b@example.com');
  });

  it('refuses to mail a reset link while the server address is unset, storing nothing', async () => {
    const sent = smtp.mails.length;
    const r = await anon.get('/api/reset_password?email=new@example.com');
    expect(r.status).toBe(503);
    expect(r.message).toMatch(/server address \(ServerAddress/);
    expect(smtp.mails.length).toBe(sent);
  });

  it('builds reset links from ServerAddress, never from Host or X-Forwarded-Host', async () => {
    await server.ctx.options.set('ServerAddress', 'https://gw.example.com/');
    const sent = smtp.mails.length;
    const attacks: Array<Record<string, string>> = [
      { host: 'evil.example' },
      { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
    ];
    for (const headers of attacks) {
      const res = await fetch(`${server.url}/api/reset_password?email=new%40example.com`, { headers });
      expect(res.status).toBe(200);
      const text = bodyText(lastMail().data);
      expect(text).not.toContain('evil.example');
      expect(/href="([^"]+)"/.exec(text)?.[1]).toMatch(/^https:\/\/gw\.example\.com\/user\/reset\?/);
    }
    expect(smtp.mails.length).toBe(sent + 2);
  });

  it('resets a password through the mailed link without revealing unknown addresses', async () => {
    const sent = smtp.mails.length;
    const unknown = await anon.get('/api/reset_password?email=nobody@example.com');
    expect(unknown.success).toBe(true);
    expect(smtp.mails.length).toBe(sent);

    const r = await anon.get('/api/reset_password?email=new@example.com');
    expect(r.success).toBe(true);
    const text = bodyText(lastMail().data);
    const link = /href="([^"]+)"/.exec(text)?.[1].replace(/&amp;|&#38;/g, '&') as string;
    expect(link).toMatch(
      /^https:\/\/gw\.example\.com\/user\/reset\?email=new%40example\.com&token=[0-9a-f]{32}$/,
    );
    const token = new URL(link).searchParams.get('token') as string;

    const bad = await anon.post('/api/user/reset', { email: 'new@example.com', token: 'f'.repeat(32) });
    expect(bad).toMatchObject({ status: 400, message: 'the reset link is invalid or has expired' });
    const done = await anon.post('/api/user/reset', { email: 'new@example.com', token });
    expect(done.success).toBe(true);
    expect(done.data).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect((await new ConsoleClient(server.url).login('mailed', 'password123')).success).toBe(false);
    expect((await new ConsoleClient(server.url).login('mailed', done.data)).success).toBe(true);
    const again = await anon.post('/api/user/reset', { email: 'new@example.com', token });
    expect(again.status).toBe(400);
  });

  it('answers a 502 envelope when the SMTP server refuses the message', async () => {
    smtp.refuse = true;
    const r = await anon.get('/api/verification?email=refused@example.com');
    expect(r).toMatchObject({
      status: 502,
      success: false,
      message: 'the e-mail could not be sent; try again later or ask the administrator',
    });
  });
});
