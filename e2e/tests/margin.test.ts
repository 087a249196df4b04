import OpenAI from 'openai';
import { afterAll, describe, expect, test } from 'vitest';
import { exportQuotaData } from '../../server/src/modules/data/export.ts';
import { relayState } from '../../server/src/relay/relay-state.ts';
import { type FlakyUpstream, startFlakyUpstream } from '../../server/test/support/mock-flaky.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, ROOT, settle, shootAll, shot } from '../support/index.ts';

/**
 * Channel cost and margin in the console, with rows produced by relaying through a mock upstream: an admin
 * gives a channel its upstream price in the channel drawer (a price that does not parse is refused there), the
 * relay logs each request's cost, and the dashboard and the log page show revenue, cost and margin by day,
 * channel and model.
 *
 * The mock answers every request with the recorded 16 prompt + 363 completion tokens (1,468 weighted tokens at
 * completion ratio 4). Quota is shown as quota (currency display off), so the figures are exact:
 * - "Reseller" (created in the drawer, group default): cost ratio 0.6; gpt-4o at its own ratio 1.
 *   3 x gpt-4o-mini: revenue 3 x round(1468 x 0.075) = 330, cost 3 x round(1468 x 0.045) = 198.
 *   2 x gpt-4o: revenue 2 x 1468 x 1.25 = 3670, cost 2 x 1468 = 2936.
 * - "Direct" (group vip): cost ratio 1.2, 4 x gpt-4o-mini: revenue 440, cost 4 x round(132.12) = 528 (a loss).
 * Totals: revenue 4440, cost 3662, margin 778.
 */
let mock: FlakyUpstream;

// antd 6 has no `.ant-drawer-content`; the open drawer is `.ant-drawer-open`.
const drawer = () => page.locator('.ant-drawer-open');
const toast = (text: string) => page.locator('.ant-message').getByText(text, { exact: false });

mock = await startFlakyUpstream();
const opened = await openConsole();
const { gw, browser, page } = opened;
await gw.ctx.options.set('DisplayInCurrencyEnabled', 'false');
await gw.ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1 }));
await loginViaApi(page, gw.url, ROOT, '/channel');

afterAll(async () => {
  await mock?.close();
});

async function relay(group: string, models: Array<[string, number]>) {
  const user = await seedUser(gw.ctx, { quota: 1e9, group, username: `buyer-${group}` });
  const token = await seedToken(gw.ctx, { userId: user.id, unlimited: true });
  const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  for (const [model, n] of models)
    for (let i = 0; i < n; i++)
      await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });
}

describe('channel cost and margin', () => {
  test('the channel drawer takes a cost ratio and per-model prices, and refuses prices that do not parse', async () => {
    await settle(page);
    await page.getByRole('button', { name: '添加渠道' }).click();
    await page.locator('#channel_name').fill('Reseller');
    await page.locator('#channel_base_url').fill(mock.url);
    await page.locator('#channel_key').fill('sk-reseller');
    await drawer().getByRole('button', { name: '清除所有模型' }).click();
    await drawer().getByPlaceholder('输入自定义模型名称，多个用英文逗号分隔').fill('gpt-4o-mini,gpt-4o');
    await drawer().getByRole('button', { name: '填入', exact: true }).click();
    await page.locator('#channel_costRatio').fill('0.6');
    const prices = page.locator('#channel_costPrices');
    await prices.fill('{"gpt-4o": {"ratio": 1, "input": 2}}');
    await prices.blur();
    await expect.poll(() => drawer().getByText('gpt-4o：未知字段 "input"', { exact: false }).count()).toBe(1);
    await page.getByTestId('channel-submit').click();
    await expect.poll(() => toast('请检查输入').count()).toBeGreaterThan(0);
    expect(await gw.ctx.db.db.selectFrom('channels').selectAll().execute()).toHaveLength(0);

    await prices.fill('{"gpt-4o": {"ratio": 1}}');
    await prices.blur();
    await expect.poll(() => drawer().getByText('未知字段', { exact: false }).count()).toBe(0);
    await page.getByTestId('channel-submit').click();
    await expect.poll(() => toast('渠道创建成功').count()).toBeGreaterThan(0);
    const [saved] = await gw.ctx.db.db.selectFrom('channels').selectAll().execute();
    expect(JSON.parse(saved.setting)).toEqual({ cost_ratio: 0.6, cost_prices: { 'gpt-4o': { ratio: 1 } } });

    // Opened again, the drawer shows what was saved.
    await page.goto(`${gw.url}/channel/edit/${saved.id}`);
    await settle(page);
    await expect.poll(() => page.locator('#channel_costRatio').inputValue()).toBe('0.6');
    expect(JSON.parse(await page.locator('#channel_costPrices').inputValue())).toEqual({
      'gpt-4o': { ratio: 1 },
    });
    await shootAll(page, 'margin-channel-drawer', async (p) => {
      const field = p.locator('#channel_costPrices');
      await field.waitFor();
      await field.fill('{"gpt-4o": {"ratio": 1, "input": 2}}');
      await field.blur();
      await p
        .locator('.ant-drawer-open')
        .getByText('未知字段', { exact: false })
        .or(p.locator('.ant-drawer-open').getByText('unknown field', { exact: false }))
        .waitFor();
      // The section's title at the top of the drawer: ratio, prices and the refusal under them in view.
      await p
        .locator('#channel_costRatio')
        .evaluate((el) =>
          el.closest('.ant-form-item')?.previousElementSibling?.scrollIntoView({ block: 'start' }),
        );
    });
    expect(opened.errors).toEqual([]);
  });

  test('requests relayed through two channels are logged with their cost', async () => {
    await seedChannel(gw.ctx, {
      baseUrl: mock.url,
      key: 'sk-direct',
      models: ['gpt-4o-mini'],
      group: 'vip',
      name: 'Direct',
      setting: { cost_ratio: 1.2 },
    });
    await relayState(gw.ctx).channels.reload();
    await relay('default', [
      ['gpt-4o-mini', 3],
      ['gpt-4o', 2],
    ]);
    await relay('vip', [['gpt-4o-mini', 4]]);
    await flushLedger(gw.ctx);
    const rows = await gw.ctx.logDb.db
      .selectFrom('logs')
      .select(['channel_id', 'model_name', 'quota', 'cost'])
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
    // Each row's cost is the channel's price to the unit: Reseller's gpt-4o-mini at 0.6 x the official
    // round(1468 x 0.075 x 0.6) = 66, its gpt-4o at its own ratio 1 (not 0.6 x 1.25) 1468, Direct's gpt-4o-mini at
    // 1.2 x: round(132.12) = 132. The quota charged is the official price whatever the channel.
    expect(rows.map((r) => [Number(r.channel_id), r.model_name, Number(r.quota), Number(r.cost)])).toEqual([
      ...Array(3).fill([1, 'gpt-4o-mini', 110, 66]),
      ...Array(2).fill([1, 'gpt-4o', 1835, 1468]),
      ...Array(4).fill([2, 'gpt-4o-mini', 110, 132]),
    ]);
    expect(rows.reduce((s, r) => s + Number(r.quota), 0)).toBe(4440);
    expect(rows.reduce((s, r) => s + Number(r.cost), 0)).toBe(3662);
    await exportQuotaData(gw.ctx);
  });

  test('the dashboard shows revenue, cost and margin by day, channel and model', async () => {
    await page.goto(`${gw.url}/detail`);
    await settle(page);
    const panel = page.getByTestId('margin-panel');
    await panel.scrollIntoViewIfNeeded();
    const stat = (title: string) =>
      panel.locator('.ant-statistic').filter({ hasText: title }).locator('.ant-statistic-content');
    // The cards group digits as the dashboard's other cards do ("7,600"); the tables below do not.
    await expect.poll(() => stat('收入').innerText()).toBe('4,440');
    expect(await stat('上游成本').innerText()).toBe('3,662');
    expect(await stat('毛利').first().innerText()).toBe('778');
    // 778 / 4440.
    expect(await stat('毛利率').innerText()).toBe('17.5%');
    // The day chart is the first tab.
    expect(await panel.getByRole('tab', { name: '按天' }).getAttribute('aria-selected')).toBe('true');
    expect(await panel.locator('canvas').count()).toBeGreaterThan(0);

    await panel.getByRole('tab', { name: '按渠道' }).click();
    const channels = panel.getByTestId('margin-channel-table');
    await expect.poll(() => channels.locator('tr.ant-table-row').count()).toBe(2);
    const reseller = channels.locator('tr.ant-table-row').filter({ hasText: 'Reseller' });
    expect(await reseller.locator('td').allInnerTexts()).toEqual([
      '#1 Reseller',
      '5',
      '4000',
      '3134',
      '866',
      '21.6%',
    ]);
    const direct = channels.locator('tr.ant-table-row').filter({ hasText: 'Direct' });
    expect(await direct.locator('td').allInnerTexts()).toEqual([
      '#2 Direct',
      '4',
      '440',
      '528',
      '-88',
      '-20.0%',
    ]);
    // A loss is shown in red.
    const red = await direct
      .locator('td')
      .nth(4)
      .locator('span')
      .evaluate((el) => getComputedStyle(el).color);
    expect(red).toBe('rgb(255, 77, 79)');

    await panel.getByRole('tab', { name: '按模型' }).click();
    const models = panel.getByTestId('margin-model-table');
    await expect.poll(() => models.locator('tr.ant-table-row').count()).toBe(2);
    expect(await models.locator('tr.ant-table-row').nth(0).locator('td').allInnerTexts()).toEqual([
      'gpt-4o',
      '2',
      '3670',
      '2936',
      '734',
      '20.0%',
    ]);
    // 3 x 110 + 4 x 110 sold; 3 x 66 + 4 x 132 paid: 44 / 770.
    expect(await models.locator('tr.ant-table-row').nth(1).locator('td').allInnerTexts()).toEqual([
      'gpt-4o-mini',
      '7',
      '770',
      '726',
      '44',
      '5.7%',
    ]);
    expect(opened.errors).toEqual([]);
  });

  test('screenshots of the dashboard margin', async () => {
    await page.getByTestId('margin-panel').getByRole('tab', { name: '按天' }).click();
    await settle(page);
    await shot(page.getByTestId('margin-panel'), 'margin-dashboard-day');
    await shootAll(page, 'margin-dashboard', async (p) => {
      const panel = p.getByTestId('margin-panel');
      await panel.scrollIntoViewIfNeeded();
      await panel.getByRole('tab').nth(1).click();
      await settle(p);
      // The header is fixed: a full-page shot from a scrolled window draws it in the middle of the page.
      await p.evaluate(() => window.scrollTo(0, 0));
    });
  });

  test('the log page shows cost and margin beside the quota, with the breakdown a click away', async () => {
    await page.goto(`${gw.url}/log`);
    await settle(page);
    await expect.poll(() => page.getByTestId('log-stat-cost').innerText()).toBe('上游成本：3662');
    expect(await page.getByTestId('log-stat-margin').innerText()).toBe('毛利：778（17.5%）');
    // A row's own cost, in its details: the newest row went through Direct at 1.2 x, sold at 110, a loss of 22.
    // The row's first cell (its time): the middle of a row may be a link or a tooltip that keeps the click.
    await page.locator('.ant-table-tbody tr.ant-table-row').first().locator('td').first().click();
    const costItem = page
      .locator('.ant-descriptions-row')
      .filter({ has: page.locator('.ant-descriptions-item-label', { hasText: /^上游成本$/ }) })
      .locator('.ant-descriptions-item-content');
    await expect.poll(() => costItem.innerText()).toBe('132（毛利 -22）');

    await page.getByTestId('log-margin-details').click();
    const modal = page.locator('.ant-modal');
    await expect.poll(() => modal.getByTestId('margin-panel').count()).toBe(1);
    await expect.poll(() => modal.locator('canvas').count()).toBeGreaterThan(0);
    await expect
      .poll(() => modal.locator('.ant-statistic').filter({ hasText: '毛利率' }).innerText())
      .toContain('17.5%');
    await shootAll(page, 'margin-log-row', async (p) => {
      await p.locator('.ant-table-tbody tr.ant-table-row').first().locator('td').first().click();
      await p.locator('[data-testid="log-billing"]').waitFor();
    });
    await shootAll(page, 'margin-logs', async (p) => {
      await p.getByTestId('log-margin-details').click();
      const panel = p.locator('.ant-modal').getByTestId('margin-panel');
      await panel.waitFor();
      await panel.getByRole('tab').nth(2).click();
      await settle(p);
    });

    // The log filters drive the figures: channel 2 (Direct) alone is a loss.
    await page.getByLabel('渠道 ID').fill('2');
    await page.getByRole('button', { name: '搜索', exact: true }).click();
    await expect.poll(() => page.getByTestId('log-stat-cost').innerText()).toBe('上游成本：528');
    expect(await page.getByTestId('log-stat-margin').innerText()).toBe('毛利：-88（-20.0%）');
    expect(await page.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(4);
    expect(opened.errors).toEqual([]);
  });

  test('users see no cost anywhere, and the server refuses them the margin', async () => {
    const context = await browser.newContext({ locale: 'zh-CN' });
    const p = await context.newPage();
    p.setDefaultTimeout(20_000);
    const chunks: string[] = [];
    p.on('request', (r) => chunks.push(r.url()));
    const buyer = await seedUser(gw.ctx, {
      quota: 100_000,
      username: 'plain-user',
      password: 'plain-pass-1234',
    });
    // One request of their own, through Reseller (group default), so their log has a row to open.
    const token = await seedToken(gw.ctx, { userId: buyer.id, unlimited: true });
    await new OpenAI({
      apiKey: token.apiKey,
      baseURL: `${gw.url}/v1`,
      maxRetries: 0,
    }).chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await flushLedger(gw.ctx);
    const me = await loginViaApi(
      p,
      gw.url,
      { username: 'plain-user', password: 'plain-pass-1234' },
      '/detail',
    );
    await settle(p);
    await expect.poll(() => p.locator('.ant-statistic').filter({ hasText: '统计额度' }).count()).toBe(1);
    expect(await p.getByTestId('margin-panel').count()).toBe(0);
    expect(await p.getByText('上游成本').count()).toBe(0);

    await p.goto(`${gw.url}/log`);
    await settle(p);
    await expect.poll(() => p.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(1);
    expect(await p.getByTestId('log-stat-cost').count()).toBe(0);
    expect(await p.getByTestId('log-margin-details').count()).toBe(0);
    await p.locator('.ant-table-tbody tr.ant-table-row').first().click();
    await p.getByTestId('log-billing').waitFor();
    expect(await p.getByText('上游成本').count()).toBe(0);
    expect(await p.getByText('毛利').count()).toBe(0);
    // The panel's code (and its request) never reached the user's browser.
    expect(chunks.filter((u) => /\/assets\/MarginPanel-/.test(u))).toEqual([]);
    expect(chunks.filter((u) => u.includes('/api/log/margin'))).toEqual([]);

    // Asked directly, the server refuses, and the user's own rows carry no cost.
    const headers = { 'New-API-User': String(me.id) };
    const margin = await p.request.get(`${gw.url}/api/log/margin`, { headers });
    expect(margin.status()).toBe(403);
    expect(await margin.json()).toMatchObject({ success: false });
    const own = await (await p.request.get(`${gw.url}/api/log/self/?p=1&page_size=10`, { headers })).json();
    expect(own.success).toBe(true);
    expect(own.data.items).toHaveLength(1);
    expect(own.data.items[0]).not.toHaveProperty('cost');
    expect(own.data.items[0].quota).toBe(110);
    await context.close();
  });
});
