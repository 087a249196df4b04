import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { relayState } from '../../server/src/relay/relay-state.ts';
import type { MemoryCacheStore } from '../../server/src/relay/response-cache/memory-store.ts';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import {
  loggedRows,
  loginViaApi,
  openConsole,
  ROOT,
  settle,
  shootAll,
  toastAfter,
} from '../support/index.ts';

/**
 * The response cache from the console: the admin sets it up on /setting (models tab), a user turns it on for a
 * token in the token form, a repeated request is answered from the cache, and the usage log shows the hit.
 */

const field = (p: Page, key: string) => p.locator(`[id="${key}"]`);

const mock: MockUpstream = await startMockUpstream();
const opened = await openConsole();
const { gw, page } = opened;
await seedChannel(gw.ctx, { baseUrl: mock.url, key: 'sk-upstream-good', models: ['gpt-4o-mini'] });

await loginViaApi(page, gw.url, ROOT, '/setting?tab=models');

afterAll(async () => {
  await mock?.close();
});

describe('response cache in the console', () => {
  test('the admin sets the cache up in the models tab', async () => {
    await settle(page);
    await shootAll(page, 'response-cache-settings');
    const groups = field(page, 'response_cache.groups');
    await groups.fill('vip');
    await groups.press('Enter');
    await field(page, 'response_cache.ttl_seconds').fill('600');
    await field(page, 'response_cache.max_mb').fill('32');
    await field(page, 'response_cache.hit_ratio').fill('0.5');
    await page.getByRole('switch', { name: '允许请求用请求头开启缓存' }).click();
    await toastAfter(page, '保存成功', () => page.getByTestId('save-settings.section.responseCache').click());
    const o = gw.ctx.options;
    await expect
      .poll(() => [
        o.get('response_cache.groups'),
        o.get('response_cache.ttl_seconds'),
        o.get('response_cache.max_mb'),
        o.get('response_cache.hit_ratio'),
        o.get('response_cache.request_header_enabled'),
      ])
      .toEqual(['vip', '600', '32', '0.5', 'true']);
  });

  test('a token with the cache on answers a repeat from it, and the log shows the hit', async () => {
    await page.goto(`${gw.url}/token`);
    await settle(page);
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('cached');
    await page.locator('#token_unlimited_quota').click();
    await page.locator('#token_response_cache').check();
    await shootAll(page, 'response-cache-token-form', async (p) => {
      await p.getByRole('button', { name: /添加令牌|Add token/ }).click();
      await p.locator('#token_response_cache').scrollIntoViewIfNeeded();
    });
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('cached');
    await page.locator('#token_unlimited_quota').click();
    await page.locator('#token_response_cache').check();
    await toastAfter(page, '令牌创建成功', () => page.getByTestId('token-submit').click());
    const row = await gw.ctx.db.db
      .selectFrom('tokens')
      .select(['key', 'response_cache'])
      .where('name', '=', 'cached')
      .executeTakeFirstOrThrow();
    expect(row.response_cache).toBe(1);

    const chat = () =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${row.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'same again' }] }),
      });
    expect((await chat()).headers.get('x-modelgate-cache')).toBe('miss');
    // The answer is kept once it has been sent: wait for the store before asking again.
    const store = relayState(gw.ctx).responseCache as MemoryCacheStore;
    await expect.poll(() => store.size).toBeGreaterThan(0);
    const calls = mock.requests.length;
    expect((await chat()).headers.get('x-modelgate-cache')).toBe('hit');
    expect(mock.requests.length).toBe(calls);

    // The answer reaches the client before its usage row is written: the log page is opened once it is there.
    await expect.poll(() => loggedRows(gw, 'response_cache_hit')).toBeGreaterThan(0);
    await page.goto(`${gw.url}/log`);
    await settle(page);
    await expect.poll(() => page.getByText('缓存命中', { exact: true }).count()).toBeGreaterThan(0);
    await shootAll(page, 'response-cache-log');
    expect(opened.errors).toEqual([]);
  });
});
