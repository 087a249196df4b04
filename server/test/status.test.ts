import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleClient } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

// Every field named by spec 000 §3 and 002 §3, 001's status cache, and the extra ones the console reads.
const FIELDS = [
  'system_name',
  'logo',
  'footer_html',
  'quota_per_unit',
  'display_in_currency',
  'enable_drawing',
  'enable_task',
  'enable_data_export',
  'chats',
  'data_export_default_time',
  'default_collapse_sidebar',
  'mj_notify_enabled',
  'chat_link',
  'chat_link2',
  'docs_link',
  'version',
  'start_time',
  'turnstile_check',
  'turnstile_site_key',
  'email_verification',
  'github_oauth',
  'github_client_id',
  'oidc_enabled',
  'oidc_client_id',
  'oidc_authorization_endpoint',
  'linuxdo_oauth',
  'linuxdo_client_id',
  'wechat_login',
  'wechat_qrcode',
  'telegram_oauth',
  'telegram_bot_name',
  'setup',
  'self_use_mode_enabled',
  'demo_site_enabled',
  'root_init',
  'database_type',
  'server_address',
  'top_up_link',
  'min_topup',
  'enable_online_topup',
  'price',
];

describe('GET /api/status', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('answers without login with every status field and the defaults', async () => {
    const r = await new ConsoleClient(server.url).get('/api/status');
    expect(r.status).toBe(200);
    for (const f of FIELDS) expect(r.data, f).toHaveProperty(f);
    expect(r.data).toMatchObject({
      system_name: 'New API',
      quota_per_unit: 500000,
      display_in_currency: true,
      enable_drawing: true,
      enable_task: true,
      enable_data_export: true,
      data_export_default_time: 'hour',
      price: 7.3,
      min_topup: 1,
      enable_online_topup: false,
      setup: false,
      root_init: false,
      database_type: 'sqlite',
      self_use_mode_enabled: false,
      demo_site_enabled: false,
    });
    expect(Array.isArray(r.data.chats)).toBe(true);
    expect(r.data.chats.length).toBe(5);
    expect(r.data.version).toMatch(/^v\d+\.\d+\.\d+/);
    expect(Math.abs(r.data.start_time - Date.now() / 1000)).toBeLessThan(3600);
  });

  it('follows option changes and publishes client ids but never secrets', async () => {
    const o = server.ctx.options;
    await o.set('SystemName', 'Gateway X');
    await o.set('GitHubClientId', 'gh-client-id');
    await o.set('GitHubClientSecret', 'gh-very-secret');
    await o.set('TurnstileSiteKey', 'site-key-public');
    await o.set('TurnstileSecretKey', 'turnstile-very-secret');
    await o.set('PayAddress', 'https://pay.example.com');
    await o.set('EpayId', '1001');
    await o.set('EpayKey', 'epay-very-secret');
    await o.set('ServerAddress', 'https://gw.example.com');
    await o.set('DisplayInCurrencyEnabled', 'false');
    const r = await new ConsoleClient(server.url).get('/api/status');
    expect(r.data).toMatchObject({
      system_name: 'Gateway X',
      github_client_id: 'gh-client-id',
      turnstile_site_key: 'site-key-public',
      enable_online_topup: true,
      display_in_currency: false,
    });
    const text = JSON.stringify(r.data);
    expect(text).not.toContain('very-secret');
  });
});
