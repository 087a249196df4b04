import { isRootOnlyOption, ROOT_ONLY_OPTION_KEYS, Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTIONS } from '../src/modules/options/registry.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { SQLITE_ONLY } from './support/databases.ts';
import { startServer, type TestServer } from './support/server.ts';

for (const engine of SQLITE_ONLY) {
  describe.skipIf(!engine.available)(`options API on ${engine.name}`, () => {
    let server: TestServer;
    let root: ConsoleClient;
    let admin: ConsoleClient;
    let user: ConsoleClient;
    const stored = async (key: string) =>
      (await server.ctx.db.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst())
        ?.value;

    beforeAll(async () => {
      server = await startServer({ db: engine });
      root = await loginAs(server, { username: 'root', role: Role.Root });
      admin = await loginAs(server, { username: 'admin', role: Role.Admin });
      user = await loginAs(server, { username: 'user' });
    });
    afterAll(() => server?.close());

    it('lists every non-secret option to admins, including the dotted provider keys', async () => {
      await server.ctx.options.set('SMTPToken', 'smtp-very-secret');
      await server.ctx.options.set('oidc.client_secret', 'oidc-very-secret');
      const r = await admin.get('/api/option/');
      expect(r.status).toBe(200);
      const keys = (r.data as Array<{ key: string; value: string }>).map((o) => o.key);
      for (const k of [
        'PasswordLoginEnabled',
        'oidc.enabled',
        'oidc.well_known',
        'gemini.safety_settings',
        'claude.default_max_tokens',
        'global.pass_through_request_enabled',
        'general_setting.docs_link',
        'general_setting.ping_interval_seconds',
        'Chats',
        'ModelRequestRateLimitGroup',
        'DataExportDefaultTime',
        'EmailDomainWhitelist',
        'TurnstileSiteKey',
      ]) {
        expect(keys, k).toContain(k);
      }
      for (const k of [
        'SMTPToken',
        'oidc.client_secret',
        'GitHubClientSecret',
        'LinuxDOClientSecret',
        'TelegramBotToken',
        'TurnstileSecretKey',
        'EpayKey',
        'WeChatServerToken',
        'WorkerValidKey',
      ]) {
        expect(OPTIONS[k]?.secret, k).toBe(true);
        expect(keys, k).not.toContain(k);
      }
      expect(JSON.stringify(r.data)).not.toContain('very-secret');
      for (const o of r.data) expect(typeof o.value).toBe('string');
      expect(r.data.find((o: { key: string }) => o.key === 'Price').value).toBe('7.3');
    });

    it('refuses non-admins on both routes with a 403 and no data', async () => {
      const g = await user.get('/api/option/');
      expect(g.status).toBe(403);
      expect(g.data).toBeUndefined();
      const p = await user.put('/api/option/', { key: 'SystemName', value: 'hacked' });
      expect(p.status).toBe(403);
      expect(server.ctx.options.get('SystemName')).not.toBe('hacked');
    });

    it('stores a valid value, applies it in memory and reloads other instances through the bus', async () => {
      const r = await admin.put('/api/option/', { key: 'QuotaForNewUser', value: '2500' });
      expect(r).toMatchObject({ status: 200, success: true });
      expect(server.ctx.options.int('QuotaForNewUser')).toBe(2500);
      expect(await stored('QuotaForNewUser')).toBe('2500');
      await admin.put('/api/option/', { key: 'GroupRatio', value: '{"default":1,"vip":0.5}' });
      expect(server.ctx.options.json('GroupRatio')).toEqual({ default: 1, vip: 0.5 });
      expect((await admin.put('/api/option/', { key: 'SystemName', value: 'My Gateway' })).success).toBe(
        true,
      );
      expect((await admin.get('/api/status')).data.system_name).toBe('My Gateway');
    });

    it('refuses wrong types, bad JSON and unknown keys with a 400 and stores nothing', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ key: 'RegisterEnabled', value: 'yes' }, /expected true or false/],
        [{ key: 'RegisterEnabled', value: 'True' }, /expected true or false/],
        [{ key: 'RetryTimes', value: 'three' }, /expected an integer/],
        [{ key: 'RetryTimes', value: '-1' }, /at least 0/],
        [{ key: 'Price', value: 'cheap' }, /expected a number/],
        [{ key: 'ModelRatio', value: '{"gpt-4o": 1.25,' }, /not valid JSON/],
        [{ key: 'ModelRatio', value: '{"gpt-4o": "high"}' }, /must be a number/],
        [{ key: 'GroupRatio', value: '{"default":-1}' }, /not be less than 0/],
        [{ key: 'GroupRatio', value: '[1,2]' }, /JSON object/],
        [{ key: 'Chats', value: '{}' }, /JSON array/],
        [{ key: 'ModelRequestRateLimitGroup', value: '{"vip":[10,0]}' }, /at least 1/],
        [{ key: 'claude.thinking_adapter_budget_tokens_percentage', value: '1.5' }, /between 0.1 and 1/],
        [{ key: 'general_setting.ping_interval_seconds', value: '0' }, /at least 1/],
        [{ key: 'DataExportDefaultTime', value: 'year' }, /one of hour, day, week/],
        [{ key: 'EmailDomainWhitelist', value: 'gmail.com,not a domain' }, /not a domain name/],
        [{ key: 'EmailDomainWhitelist', value: 'gmail.com,GMAIL.com' }, /listed twice/],
        [{ key: 'NoSuchOption', value: '1' }, /unknown option: NoSuchOption/],
        [{ key: 'SystemName', value: { nested: true } }, /value must be a string/],
        [{ value: 'x' }, /key/],
      ];
      for (const [body, message] of cases) {
        const r = await root.put('/api/option/', body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.message).toMatch(message);
      }
      const bad = await root.put('/api/option/', '{"key":');
      expect(bad.status).toBe(400);
      for (const key of [
        'RegisterEnabled',
        'RetryTimes',
        'Price',
        'ModelRatio',
        'Chats',
        'NoSuchOption',
        'EmailDomainWhitelist',
      ]) {
        expect(await stored(key), key).toBeUndefined();
      }
      expect(server.ctx.options.bool('RegisterEnabled')).toBe(true);
    });

    it('keeps a secret when the field is sent blank, and writes a new one', async () => {
      await root.put('/api/option/', { key: 'GitHubClientSecret', value: 'first-secret' });
      const blank = await root.put('/api/option/', { key: 'GitHubClientSecret', value: '' });
      expect(blank.success).toBe(true);
      expect(server.ctx.options.get('GitHubClientSecret')).toBe('first-secret');
      expect(await stored('GitHubClientSecret')).toBe('first-secret');
    });

    it('refuses to switch on a sign-in method before its settings are filled in', async () => {
      const r = await root.put('/api/option/', { key: 'TelegramOAuthEnabled', value: 'true' });
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/Telegram bot token/);
      expect(server.ctx.options.bool('TelegramOAuthEnabled')).toBe(false);
      await root.put('/api/option/', { key: 'GitHubClientId', value: 'gh-id' });
      expect((await root.put('/api/option/', { key: 'GitHubOAuthEnabled', value: 'true' })).success).toBe(
        true,
      );
      expect((await root.put('/api/option/', { key: 'TelegramOAuthEnabled', value: 'false' })).success).toBe(
        true,
      );
    });

    it('lets only root write the options that guard sign-in, mail, links, payments, OAuth and fetches', async () => {
      // Each root-only option, written by an admin with a value that would otherwise be accepted.
      const sample = (key: string) => {
        const def = OPTIONS[key];
        if (def.type === 'bool') return 'false';
        if (def.type === 'int') return key === 'SMTPPort' ? '2525' : '1';
        if (key === 'EmailDomainWhitelist') return 'evil.example';
        return key.toLowerCase().includes('address') || key.includes('endpoint') || key.includes('well_known')
          ? 'https://evil.example'
          : 'attacker-value';
      };
      for (const key of ROOT_ONLY_OPTION_KEYS) expect(OPTIONS[key], key).toBeDefined();
      const rootOnly = Object.keys(OPTIONS).filter(isRootOnlyOption);
      expect(rootOnly.length).toBeGreaterThan(40);
      for (const key of rootOnly) {
        expect(OPTIONS[key], key).toBeDefined();
        const before = server.ctx.options.get(key);
        const storedBefore = await stored(key);
        const r = await admin.put('/api/option/', { key, value: sample(key) });
        expect(r.status, key).toBe(403);
        expect(r.message, key).toMatch(/only the root user/);
        expect(server.ctx.options.get(key), key).toBe(before);
        expect(await stored(key), key).toBe(storedBefore);
      }
      // The takeover path of the probe: mail server and server address.
      for (const [key, value] of [
        ['SMTPServer', 'mail.root-owned.example'],
        ['ServerAddress', 'https://gateway.example'],
        ['fetch_setting.allow_private_ip', 'true'],
      ]) {
        expect((await root.put('/api/option/', { key, value })).success, key).toBe(true);
        expect(server.ctx.options.get(key)).toBe(value);
      }
      // Operational options stay the admins'.
      expect((await admin.put('/api/option/', { key: 'RetryTimes', value: '2' })).success).toBe(true);
      // The list tells the console which fields are read-only for admins.
      const list = (await admin.get('/api/option/')).data as Array<{ key: string; root_only?: boolean }>;
      expect(list.find((o) => o.key === 'SMTPServer')?.root_only).toBe(true);
      expect(list.find((o) => o.key === 'RetryTimes')?.root_only).toBeUndefined();
    });

    it('refuses option keys taken from the object prototype and stores nothing', async () => {
      for (const key of [
        '__proto__',
        'constructor',
        'toString',
        'hasOwnProperty',
        'valueOf',
        'isPrototypeOf',
      ]) {
        for (const client of [admin, root]) {
          const r = await client.put('/api/option/', { key, value: 'x' });
          expect(r.status, key).toBe(400);
          expect(r.message, key).toMatch(/unknown option/);
        }
        expect(await stored(key), key).toBeUndefined();
      }
      const raw = await admin.put('/api/option/', '{"__proto__":{"key":"SystemName","value":"polluted"}}');
      expect(raw.status).toBe(400);
      expect(server.ctx.options.get('SystemName')).not.toBe('polluted');
      const list = (await admin.get('/api/option/')).data as Array<{ key: string }>;
      expect(list.map((o) => o.key)).not.toContain('constructor');
    });

    it('refuses script and other non-http URLs in the options the console shows as links', async () => {
      const links = [
        'Logo',
        'TopUpLink',
        'general_setting.docs_link',
        'ChatLink',
        'ChatLink2',
        'WeChatAccountQRCodeImageURL',
      ];
      const bad = [
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        '  javascript:alert(1)',
        'java\tscript:alert(1)',
        'java\nscript:alert(1)',
        'vbscript:msgbox(1)',
        'data:text/html,<script>alert(1)</script>',
        '//evil.example/x',
        '/\\evil.example/x',
        'ftp://files.example/x',
      ];
      for (const key of links) {
        for (const value of bad) {
          const r = await root.put('/api/option/', { key, value });
          expect(r.status, `${key}=${value}`).toBe(400);
          expect(r.message).toMatch(/http\(s\) URL/);
          expect(await stored(key), key).toBeUndefined();
        }
        expect(
          (await root.put('/api/option/', { key, value: 'https://docs.example/guide' })).success,
          key,
        ).toBe(true);
        expect((await root.put('/api/option/', { key, value: '/logo.png' })).success, key).toBe(true);
        expect((await root.put('/api/option/', { key, value: '' })).success, key).toBe(true);
      }
      const chats = await admin.put('/api/option/', {
        key: 'Chats',
        value: JSON.stringify([
          { Good: 'https://chat.example/?key={key}' },
          { Evil: ' JavaScript:alert(1)' },
        ]),
      });
      expect(chats.status).toBe(400);
      expect(chats.message).toMatch(/Evil/);
      const apps = JSON.stringify([{ OpenCat: 'opencat://team/join?domain={address}&token={key}' }]);
      expect((await admin.put('/api/option/', { key: 'Chats', value: apps })).success).toBe(true);
    });
  });
}
