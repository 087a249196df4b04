import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import {
  createUserViaApi,
  loginViaApi,
  openConsole,
  openPage,
  poll,
  ROOT,
  settle,
  shootAll,
  shot,
  todayAgo,
} from '../support/index.ts';

/** The usage log page: stats, filters, expandable billing details, column settings, admin vs user views. */
const ALICE = { username: 'alice', password: 'alice-pass-1' };

let aliceId = 0;

const rows = (p: Page) => p.locator('.ant-table-tbody tr.ant-table-row');

// Every column of the list shows from 1600 px (wide-tables.test.ts checks which give way at 1366 px).
const admin = await openConsole({ viewport: { width: 1680, height: 1000 } });
const { gw, browser, page } = admin;
const root = await loginViaApi(page, gw.url, ROOT, '/personal');
await createUserViaApi(page, gw.url, Number(root.id), ALICE);
const db = gw.ctx.db.db;
aliceId = Number(
  (await db.selectFrom('users').select('id').where('username', '=', 'alice').executeTakeFirstOrThrow()).id,
);
await db
  .insertInto('channels')
  .values({ type: 1, key: 'sk-x', name: 'openai-main', models: 'gpt-4o', group: 'default' } as never)
  .execute();
const channel = Number((await db.selectFrom('channels').select('id').executeTakeFirstOrThrow()).id);
const ago = todayAgo(3000);
const base = {
  type: 2,
  content: '',
  token_id: 1,
  use_time: 4,
  is_stream: 1,
  channel_id: channel,
  group: 'default',
  ip: '10.0.0.9',
  request_id: 'req-e2e',
};
const other = (o: Record<string, unknown>) =>
  JSON.stringify({
    model_ratio: 1.25,
    completion_ratio: 4,
    group_ratio: 1,
    model_price: -1,
    cache_tokens: 0,
    cache_ratio: 0.5,
    use_time: 4200,
    admin_info: { use_channel: [String(channel)] },
    ...o,
  });
// Only the rows below: drop what account creation logged.
await gw.ctx.logDb.db.deleteFrom('logs').execute();
await gw.ctx.logDb.db
  .insertInto('logs')
  .values([
    {
      ...base,
      user_id: aliceId,
      username: 'alice',
      created_at: ago(30),
      token_name: 'alice-key',
      model_name: 'gpt-4o',
      quota: 13750,
      prompt_tokens: 1000,
      completion_tokens: 2500,
      first_time: 800,
      other: other({
        cache_tokens: 200,
        is_model_mapped: true,
        upstream_model_name: 'gpt-4o-2024-08-06',
        admin_info: { use_channel: ['7', String(channel)] },
      }),
    },
    {
      ...base,
      user_id: aliceId,
      username: 'alice',
      created_at: ago(20),
      token_name: 'alice-key',
      model_name: 'claude-3-haiku',
      quota: 500,
      prompt_tokens: 100,
      completion_tokens: 50,
      first_time: 12_000,
      is_stream: 0,
      // A Claude answer with 5-minute and 1-hour cache writes and reasoning tokens.
      other: other({
        model_ratio: 0.125,
        cache_creation_tokens: 40,
        cache_creation_tokens_1h: 20,
        cache_creation_ratio: 1.25,
        reasoning_tokens: 30,
      }),
    },
    {
      ...base,
      user_id: Number(root.id),
      username: 'root',
      created_at: ago(10),
      token_name: 'root-key',
      model_name: 'gpt-4o',
      quota: 2000,
      prompt_tokens: 200,
      completion_tokens: 300,
      first_time: 500,
      other: other({}),
    },
    {
      ...base,
      user_id: aliceId,
      username: 'alice',
      created_at: ago(5),
      type: 1,
      content: '通过兑换码充值 $1.000000，兑换码ID 3',
      token_name: '',
      model_name: '',
      quota: 500000,
      prompt_tokens: 0,
      completion_tokens: 0,
      first_time: 0,
      channel_id: 0,
      other: '',
    },
  ])
  .execute();
await page.goto(`${gw.url}/log`);
await settle(page);

describe('usage logs', () => {
  test('an admin sees every row, the stats and the admin columns', async () => {
    await poll(() => rows(page).count()).toBe(4);
    const stats = page.getByTestId('log-stats');
    await poll(() => stats.innerText()).toContain('RPM：3');
    await poll(() => stats.innerText()).toContain('TPM：4150');
    const head = await page.locator('.ant-table-thead').innerText();
    for (const col of ['渠道', '用户', '重试']) expect(head).toContain(col);
    expect(await page.locator('.ant-table-tbody').innerText()).toContain('7 → ');
  });

  test('filters by model and expands a row into the billing explanation', async () => {
    await page.getByLabel('模型名称').fill('gpt-4o');
    await page
      .getByRole('button', { name: '搜 索' })
      .or(page.getByRole('button', { name: '搜索', exact: true }))
      .click();
    await poll(() => rows(page).count()).toBe(2);
    const aliceRow = rows(page).filter({ hasText: 'alice-key' });
    await aliceRow.locator('.ant-table-row-expand-icon').click();
    const details = page.locator('.ant-table-expanded-row').first();
    await poll(() => details.innerText()).toContain('模型倍率 1.25，补全倍率 4，分组倍率 1');
    const text = await details.innerText();
    expect(text).toContain('输入价格 $2.5 / 1M tokens，补全价格 $10 / 1M tokens');
    expect(text).toContain('缓存 200 tokens');
    expect(text).toContain('实际模型 gpt-4o-2024-08-06');
    expect(text).toContain('openai-main');
    // (800 + 200 x 0.5 + 2500 x 4) / 1M x $2.5 = $0.02725 = 13625 quota; the row charged 13750 (rounding upstream).
    expect(text).toContain('= $0.02725');
    expect(text).toContain('实际扣费 13750 额度');
    // Time tags: 4.2 s total, 0.8 s to the first token, speed 2500 / 4.2 s.
    const cells = await aliceRow.innerText();
    expect(cells).toContain('4.2 s');
    expect(cells).toContain('0.8 s');
    expect(cells).toContain('595.2 t/s');
    await shot(page, 'logs-expanded-light-zh-desktop', { fullPage: true });
  });

  test('opens the user info from a username', async () => {
    await rows(page).filter({ hasText: 'alice-key' }).getByRole('button', { name: 'alice' }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '用户信息' });
    await poll(() => modal.innerText()).toContain('alice');
    await modal.locator('.ant-modal-close').click();
  });

  test('explains cache writes (5-minute and 1-hour) and shows reasoning tokens', async () => {
    const expand = async (p: typeof page) => {
      await rows(p).filter({ hasText: 'claude-3-haiku' }).locator('.ant-table-row-expand-icon').click();
    };
    await page.reload();
    await settle(page);
    await expand(page);
    const details = page.locator('.ant-table-expanded-row').first();
    await poll(() => details.innerText()).toContain('1 小时缓存创建 20 tokens，倍率 2');
    const text = await details.innerText();
    expect(text).toContain('缓存创建 40 tokens，倍率 1.25');
    expect(text).toContain('40 + 20 (1h)');
    expect(text).toContain('推理 Tokens');
    // (40 + 40 x 1.25 + 20 x 2 + 50 x 4) / 1M x $0.25 = $0.0000825, shown to six decimals.
    expect(text).toContain('= $0.000082');
    await shootAll(page, 'logs-cache-write', expand);
  });

  test('remembers the chosen columns', async () => {
    await page.getByRole('button', { name: /列设置/ }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '选择要显示的列' });
    await modal.getByRole('checkbox', { name: '详情' }).uncheck();
    await modal.getByRole('button', { name: /确/ }).click();
    await page.reload();
    await settle(page);
    expect(
      JSON.parse((await page.evaluate(() => localStorage.getItem('logs-table-columns'))) ?? '{}'),
    ).toMatchObject({ details: false });
    expect(await page.locator('.ant-table-thead').innerText()).not.toContain('详情');
    await shootAll(page, 'logs');
  });

  test('a user sees only their own rows, without the admin columns and filters', async () => {
    const user = await openPage(browser, { viewport: { width: 1680, height: 1000 } });
    await loginViaApi(user.page, gw.url, ALICE, '/log');
    const p = user.page;
    await settle(p);
    await poll(() => rows(p).count()).toBe(3);
    const body = await p.locator('.ant-table-tbody').innerText();
    expect(body).not.toContain('root-key');
    const head = await p.locator('.ant-table-thead').innerText();
    for (const col of ['渠道', '重试']) expect(head).not.toContain(col);
    expect(await p.getByLabel('用户名').count()).toBe(0);
    await p.getByRole('combobox').first().click();
    await p.locator('.ant-select-item-option').filter({ hasText: '充值' }).click();
    await p
      .getByRole('button', { name: '搜 索' })
      .or(p.getByRole('button', { name: '搜索', exact: true }))
      .click();
    await poll(() => rows(p).count()).toBe(1);
    expect(await rows(p).first().innerText()).toContain('充值');
    await shootAll(p, 'logs-user');
    expect(user.errors).toEqual([]);
    await user.context.close();
  });

  test('pages through a long list by cursor: each page follows the one before it', async () => {
    // Within the page's default window (today from 00:00), at any time of day.
    const first = ago(3000);
    await gw.ctx.logDb.db
      .insertInto('logs')
      .values(
        Array.from({ length: 35 }, (_, i) => ({
          user_id: aliceId,
          username: 'alice',
          created_at: first + i,
          type: 2,
          content: '',
          token_name: 'alice-key',
          token_id: 1,
          model_name: 'paged-model',
          quota: 1,
          prompt_tokens: 1,
          completion_tokens: 1,
          use_time: 1,
          first_time: 0,
          is_stream: 0,
          channel_id: 0,
          group: 'default',
          ip: '',
          request_id: `paged-${i}`,
          other: '',
        })),
      )
      .execute();
    const asked: URL[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/log/?')) asked.push(new URL(r.url()));
    });
    await page.getByLabel('模型名称').fill('paged-model');
    await page
      .getByRole('button', { name: '搜 索' })
      .or(page.getByRole('button', { name: '搜索', exact: true }))
      .click();
    await poll(() => rows(page).count()).toBe(10);
    const pager = page.locator('.ant-pagination');
    await pager.locator('.ant-pagination-item-3').click();
    await poll(() => asked.at(-1)?.searchParams.get('before_id') ?? '').not.toBe('');
    // Page 3 was never read: it is asked for as the second page after page 1's last row.
    const third = asked.at(-1)!;
    expect(third.searchParams.get('p')).toBe('2');
    expect(third.searchParams.get('model_name')).toBe('paged-model');
    await poll(() => rows(page).count()).toBe(10);
    await pager.locator('.ant-pagination-item-4').click();
    await poll(() => rows(page).count()).toBe(5);
    // Page 4 follows page 3 directly.
    expect(asked.at(-1)!.searchParams.get('p')).toBe('1');
    expect(Number(asked.at(-1)!.searchParams.get('before_time'))).toBe(first + 5);
    await shootAll(page, 'logs-paged');
    await page.getByLabel('模型名称').fill('');
  });
});
