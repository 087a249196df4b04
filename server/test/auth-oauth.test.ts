import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthEndpoints } from '../src/modules/auth/oauth/providers.ts';
import { ConsoleClient, loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Stand-ins for GitHub, an OIDC provider, Linux DO and a WeChat code server, answering their documented shapes. */
function fakeProviders(seen: Seen[]): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ path: url.pathname, headers: req.headers, body });
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      const auth = req.headers.authorization ?? '';
      switch (url.pathname) {
        case '/github/token': {
          const b = JSON.parse(body);
          if (b.client_secret !== 'gh-secret') return json(200, { error: 'incorrect_client_credentials' });
          const users: Record<string, string> = {
            'gh-code-1': 'gho_1',
            'gh-code-2': 'gho_2',
            'gh-code-3': 'gho_3',
          };
          if (!users[b.code]) {
            return json(200, {
              error: 'bad_verification_code',
              error_description: 'The code passed is incorrect or expired.',
            });
          }
          return json(200, { access_token: users[b.code], token_type: 'bearer', scope: 'user:email' });
        }
        case '/github/user': {
          const who: Record<string, unknown> = {
            'Bearer gho_1': { login: 'octocat', id: 583231, name: 'The Octocat', email: 'octo@example.com' },
            'Bearer gho_2': { login: 'hubber', id: 777, name: null, email: null },
            'Bearer gho_3': { login: 'octocat', id: 999, name: 'Namesake', email: null },
          };
          return who[auth] ? json(200, who[auth]) : json(401, { message: 'Bad credentials' });
        }
        case '/oidc/token': {
          const f = new URLSearchParams(body);
          if (f.get('code') !== 'oidc-code' || f.get('grant_type') !== 'authorization_code')
            return json(400, { error: 'invalid_grant' });
          return json(200, { access_token: 'oidc-at', token_type: 'Bearer', expires_in: 3600 });
        }
        case '/oidc/userinfo':
          return auth === 'Bearer oidc-at'
            ? json(200, {
                sub: 'sub-123',
                preferred_username: 'oidcuser',
                name: 'O. Idc',
                email: 'o@example.com',
              })
            : json(401, { error: 'invalid_token' });
        case '/linuxdo/token': {
          const basic = `Basic ${Buffer.from('ldo-id:ldo-secret').toString('base64')}`;
          if (auth !== basic) return json(401, { error: 'invalid_client' });
          return json(200, { access_token: 'ldo-at', token_type: 'bearer' });
        }
        case '/linuxdo/user':
          return auth === 'Bearer ldo-at'
            ? json(200, { id: 42, username: 'ldo', name: 'Linux Do' })
            : json(401, {});
        case '/wechat/api/wechat/user':
          if (auth !== 'wx-token') return json(200, { success: false, message: 'unauthorized' });
          return url.searchParams.get('code') === 'wx-good'
            ? json(200, { success: true, message: '', data: 'wx-openid-1' })
            : json(200, { success: false, message: 'the code is wrong or has expired' });
        default:
          return json(404, { error: 'not found' });
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function telegramQuery(botToken: string, fields: Record<string, string>): string {
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('\n');
  const hash = createHmac('sha256', createHash('sha256').update(botToken).digest())
    .update(check)
    .digest('hex');
  return new URLSearchParams({ ...fields, hash }).toString();
}

describe('third-party sign-in', () => {
  let server: TestServer;
  let providers: Server;
  let base: string;
  const seen: Seen[] = [];
  const saved = { ...oauthEndpoints };
  const row = (where: 'github_id' | 'oidc_id' | 'linux_do_id' | 'wechat_id' | 'telegram_id', value: string) =>
    server.ctx.db.db.selectFrom('users').selectAll().where(where, '=', value).executeTakeFirst();

  /** The console's round trip: get a state (keeping its cookie), then call the callback with it. */
  async function callback(c: ConsoleClient, provider: string, code: string, aff = '') {
    const st = await c.get(`/api/oauth/state${aff ? `?aff=${aff}` : ''}`);
    const stateCookie =
      st.headers
        .getSetCookie()
        .find((x) => x.startsWith('oauth_state='))
        ?.split(';')[0] ?? '';
    const cookie = [c.cookie, stateCookie].filter(Boolean).join('; ');
    return c.get(`/api/oauth/${provider}?code=${code}&state=${st.data}`, { cookie });
  }

  beforeAll(async () => {
    server = await startServer();
    providers = await fakeProviders(seen);
    const addr = providers.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    Object.assign(oauthEndpoints, {
      githubToken: `${base}/github/token`,
      githubUser: `${base}/github/user`,
      linuxdoToken: `${base}/linuxdo/token`,
      linuxdoUser: `${base}/linuxdo/user`,
    });
    const o = server.ctx.options;
    for (const [k, v] of Object.entries({
      GitHubClientId: 'gh-id',
      GitHubClientSecret: 'gh-secret',
      GitHubOAuthEnabled: 'true',
      'oidc.client_id': 'oidc-id',
      'oidc.client_secret': 'oidc-secret',
      'oidc.token_endpoint': `${base}/oidc/token`,
      'oidc.user_info_endpoint': `${base}/oidc/userinfo`,
      'oidc.authorization_endpoint': `${base}/oidc/authorize`,
      'oidc.enabled': 'true',
      ServerAddress: 'https://gw.example.com',
      LinuxDOClientId: 'ldo-id',
      LinuxDOClientSecret: 'ldo-secret',
      LinuxDOOAuthEnabled: 'true',
      WeChatServerAddress: `${base}/wechat`,
      WeChatServerToken: 'wx-token',
      WeChatAuthEnabled: 'true',
      TelegramBotToken: '123:telegram-bot-token',
      TelegramBotName: 'gw_bot',
      TelegramOAuthEnabled: 'true',
    })) {
      await o.set(k, v);
    }
  });
  afterAll(async () => {
    Object.assign(oauthEndpoints, saved);
    await server?.close();
    await new Promise((r) => providers?.close(r));
  });

  it('refuses a callback whose state does not match, and a disabled provider', async () => {
    const c = new ConsoleClient(server.url);
    const noState = await c.get('/api/oauth/github?code=gh-code-1&state=forged');
    expect(noState.status).toBe(403);
    expect(noState.message).toMatch(/state is empty or does not match/);
    await server.ctx.options.set('LinuxDOOAuthEnabled', 'false');
    expect((await callback(c, 'linuxdo', 'x')).status).toBe(403);
    await server.ctx.options.set('LinuxDOOAuthEnabled', 'true');
    expect(await row('github_id', '583231')).toBeUndefined();
  });

  it('signs up and logs in with GitHub, crediting the referral kept with the state', async () => {
    const inviter = await loginAs(server, { username: 'inviter' });
    const aff = (await inviter.get('/api/user/aff')).data;
    const c = new ConsoleClient(server.url);
    const r = await callback(c, 'github', 'gh-code-1', aff);
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ username: 'octocat', display_name: 'The Octocat', role: 1, status: 1 });
    expect(seen.find((s) => s.path === '/github/token')?.body).toContain('"client_id":"gh-id"');
    const u = await row('github_id', '583231');
    expect(u).toMatchObject({ username: 'octocat', email: 'octo@example.com', inviter_id: inviter.userId });
    c.userId = r.data.id;
    expect((await c.get('/api/user/self')).data.username).toBe('octocat');
    expect((await inviter.get('/api/user/self')).data.aff_count).toBe(1);

    const again = await callback(new ConsoleClient(server.url), 'github', 'gh-code-1');
    expect(again.data.id).toBe(r.data.id);
    const namesake = await callback(new ConsoleClient(server.url), 'github', 'gh-code-3');
    expect(namesake.data.username).toMatch(/^github_[0-9a-f]{5}$/);
    const bad = await callback(new ConsoleClient(server.url), 'github', 'expired');
    expect(bad).toMatchObject({
      status: 400,
      message: 'GitHub refused the sign-in: The code passed is incorrect or expired.',
    });
  });

  it('binds GitHub to the logged-in user, once per GitHub account', async () => {
    const me = await loginAs(server, { username: 'binder' });
    const r = await callback(me, 'github', 'gh-code-2');
    expect(r).toMatchObject({ status: 200, message: 'bind' });
    expect((await row('github_id', '777'))?.username).toBe('binder');
    const other = await loginAs(server, { username: 'other' });
    const taken = await callback(other, 'github', 'gh-code-2');
    expect(taken).toMatchObject({
      status: 400,
      message: 'this GitHub account is already bound to another user',
    });
    expect((await row('github_id', '777'))?.username).toBe('binder');
  });

  it('signs in with OIDC and Linux DO using their token exchanges', async () => {
    const o = await callback(new ConsoleClient(server.url), 'oidc', 'oidc-code');
    expect(o.data).toMatchObject({ username: 'oidcuser', display_name: 'O. Idc' });
    const form = new URLSearchParams(seen.find((s) => s.path === '/oidc/token')?.body);
    expect(form.get('redirect_uri')).toBe('https://gw.example.com/oauth/oidc');
    expect(form.get('client_secret')).toBe('oidc-secret');
    expect((await row('oidc_id', 'sub-123'))?.email).toBe('o@example.com');

    const l = await callback(new ConsoleClient(server.url), 'linuxdo', 'ldo-code');
    expect(l.data).toMatchObject({ username: 'ldo', display_name: 'Linux Do' });
    expect((await row('linux_do_id', '42'))?.username).toBe('ldo');
    const denied = await new ConsoleClient(server.url).get(
      '/api/oauth/linuxdo?error=access_denied&error_description=user%20said%20no',
    );
    expect(denied).toMatchObject({ status: 400, message: 'user said no' });
  });

  it('signs in with a WeChat code and binds one to a logged-in user', async () => {
    const anon = new ConsoleClient(server.url);
    expect(await anon.get('/api/oauth/wechat/bind?code=wx-good')).toMatchObject({ status: 401 });
    expect(await row('wechat_id', 'wx-openid-1')).toBeUndefined();
    const me = await loginAs(server, { username: 'wxuser' });
    expect((await me.get('/api/oauth/wechat/bind?code=wx-good')).message).toBe('bind');
    expect((await row('wechat_id', 'wx-openid-1'))?.username).toBe('wxuser');
    const login = await new ConsoleClient(server.url).get('/api/oauth/wechat?code=wx-good');
    expect(login.data.username).toBe('wxuser');
    const wrong = await new ConsoleClient(server.url).get('/api/oauth/wechat?code=nope');
    expect(wrong).toMatchObject({ status: 400, message: 'the code is wrong or has expired' });
  });

  it('binds Telegram with a signed widget login, then logs in with it; bad signatures are refused', async () => {
    const now = String(Math.floor(Date.now() / 1000));
    const fields = { id: '5550001', first_name: 'Tele', username: 'teleuser', auth_date: now };
    const q = telegramQuery('123:telegram-bot-token', fields);
    const anon = new ConsoleClient(server.url);
    const unbound = await anon.get(`/api/oauth/telegram/login?${q}`);
    expect(unbound.status).toBe(400);
    expect(unbound.message).toMatch(/not bound to any user/);

    const me = await loginAs(server, { username: 'tguser' });
    const res = await fetch(`${server.url}/api/oauth/telegram/bind?${q}`, {
      headers: { cookie: me.cookie },
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/setting');
    expect((await row('telegram_id', '5550001'))?.username).toBe('tguser');
    expect((await anon.get(`/api/oauth/telegram/login?${q}`)).data.username).toBe('tguser');

    const forged = telegramQuery('wrong-token', fields);
    expect(await anon.get(`/api/oauth/telegram/login?${forged}`)).toMatchObject({
      status: 400,
      message: 'invalid Telegram login data',
    });
    const old = telegramQuery('123:telegram-bot-token', {
      ...fields,
      auth_date: String(Number(now) - 200000),
    });
    expect((await anon.get(`/api/oauth/telegram/login?${old}`)).message).toMatch(/expired/);
  });

  it('follows the registration switch, bans and deleted accounts', async () => {
    await server.ctx.options.set('RegisterEnabled', 'false');
    const closed = await callback(new ConsoleClient(server.url), 'oidc', 'oidc-code');
    expect(closed.data.username).toBe('oidcuser'); // existing accounts still sign in
    await server.ctx.db.db.deleteFrom('users').where('oidc_id', '=', 'sub-123').execute();
    const refused = await callback(new ConsoleClient(server.url), 'oidc', 'oidc-code');
    expect(refused).toMatchObject({
      status: 403,
      message: 'new user registration has been closed by the administrator',
    });
    expect(await row('oidc_id', 'sub-123')).toBeUndefined();
    await server.ctx.options.set('RegisterEnabled', 'true');

    const octo = await row('github_id', '583231');
    await server.ctx.db.db
      .updateTable('users')
      .set({ status: 2 })
      .where('id', '=', Number(octo?.id))
      .execute();
    const banned = await callback(new ConsoleClient(server.url), 'github', 'gh-code-1');
    expect(banned).toMatchObject({ status: 403, message: 'this user has been banned' });
    expect(
      banned.headers.getSetCookie().some((c) => c.startsWith('session=') && !c.startsWith('session=;')),
    ).toBe(false);
    await server.ctx.db.db
      .updateTable('users')
      .set({ status: 3, deleted_at: 1 })
      .where('id', '=', Number(octo?.id))
      .execute();
    const gone = await callback(new ConsoleClient(server.url), 'github', 'gh-code-1');
    expect(gone).toMatchObject({
      status: 403,
      message: 'the account bound to this sign-in has been deleted',
    });
  });
});
