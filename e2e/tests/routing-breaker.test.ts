import { afterAll, describe, expect, test } from 'vitest';
import { type FlakyUpstream, startFlakyUpstream } from '../../server/test/support/mock-flaky.ts';
import { seedChannel, seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import {
  loginViaApi,
  openConsole,
  ROOT,
  SWEEP_COMBINATIONS,
  settle,
  shootAll,
  toast,
  toastAfter,
} from '../support/index.ts';

/**
 * An admin sets a group's routing mode and the circuit breaker on /setting (bad values are refused with a
 * message), and sees on /channel which channel the breaker keeps out of rotation and until when.
 */
let mock: FlakyUpstream;

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');

mock = await startFlakyUpstream();
const admin = await openConsole();
const { gw, page } = admin;
await loginViaApi(page, gw.url, ROOT, '/setting');

afterAll(async () => {
  await mock?.close();
});

describe('routing modes and the circuit breaker in the console', () => {
  test('the routing mode map is checked before saving; a valid one is saved', async () => {
    await settle(page);
    const modes = page.locator('#GroupRoutingMode');
    await modes.fill('{"vip": "fastest"}');
    await modes.blur();
    await expect
      .poll(() => page.getByText('路由方式为 weighted、round_robin、least_requests 或 cheapest').count())
      .toBeGreaterThan(0);
    await toastAfter(page, '请检查输入', () => page.getByTestId('save-settings.section.groups').click());
    expect(gw.ctx.options.get('GroupRoutingMode')).toBe('{}');

    await modes.fill('{"vip": "round_robin", "default": "least_requests"}');
    await modes.blur();
    await toastAfter(page, '保存成功', () => page.getByTestId('save-settings.section.groups').click());
    expect(JSON.parse(gw.ctx.options.get('GroupRoutingMode'))).toEqual({
      vip: 'round_robin',
      default: 'least_requests',
    });
  });

  test('the breaker section saves its numbers', async () => {
    const section = page.locator('.ant-card').filter({ hasText: '通道熔断' });
    await section.locator('#CircuitBreakerMinRequests').fill('4');
    await section.locator('#CircuitBreakerCooldownSeconds').fill('3600');
    await page.getByTestId('save-settings.section.breaker').click();
    // The previous section's "saved" toast may still be up: wait for the options themselves.
    await expect.poll(() => gw.ctx.options.get('CircuitBreakerCooldownSeconds')).toBe('3600');
    expect(gw.ctx.options.get('CircuitBreakerMinRequests')).toBe('4');
    await expect.poll(() => toast(page, '保存成功').count()).toBeGreaterThan(0);
    await shootAll(page, 'settings-breaker');
  });

  test('a channel failing every request shows "circuit open until hh:mm:ss" in the list', async () => {
    await gw.ctx.options.set('RetryTimes', '1');
    mock.set('sk-broken', { failShare: 1 });
    await seedChannel(gw.ctx, {
      baseUrl: mock.url,
      key: 'sk-fine',
      models: ['gpt-4o-mini'],
      name: 'steady upstream',
    });
    await seedChannel(gw.ctx, {
      baseUrl: mock.url,
      key: 'sk-broken',
      models: ['gpt-4o-mini'],
      name: 'flaky upstream',
    });
    const user = await seedUser(gw.ctx, { quota: 100_000_000 });
    const token = await seedToken(gw.ctx, { userId: user.id, unlimited: true });
    for (let i = 0; i < 20 && mock.count('sk-broken') < 4; i++) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(r.status).toBe(200);
    }
    expect(mock.count('sk-broken')).toBe(4);

    await page.goto(`${gw.url}/channel`);
    await settle(page);
    const flaky = rows().filter({ hasText: 'flaky upstream' });
    await expect
      .poll(() => flaky.getByTestId('circuit-tag').innerText())
      .toMatch(/^熔断至 \d{2}:\d{2}:\d{2}$/);
    expect(await rows().filter({ hasText: 'steady upstream' }).getByTestId('circuit-tag').count()).toBe(0);
    expect(await flaky.innerText()).toContain('已启用');
    const files = await shootAll(page, 'channels-circuit-open');
    expect(files).toHaveLength(SWEEP_COMBINATIONS);
    expect(admin.errors).toEqual([]);
  });
});
