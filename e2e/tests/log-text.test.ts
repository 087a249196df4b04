import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel, seedToken } from '../../server/test/support/relay-seed.ts';
import {
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  settle,
  shootAll,
  toastAfter,
  todayAgo,
} from '../support/index.ts';

/**
 * The usage log read in English: what the server wrote (a real relay call, a redemption, a task refund) is in
 * English, rows from before keep their stored text, and the billing explanation agrees with itself.
 */
let mock: MockUpstream;
let rootId = 0;

const rows = (p: Page) => p.locator('.ant-table-tbody tr.ant-table-row');
const expandRow = async (p: Page, text: string) => {
  await rows(p).filter({ hasText: text }).first().locator('.ant-table-row-expand-icon').click();
};
/** The expanded row under the row with `text`. */
const expandedUnder = (p: Page, text: string) =>
  rows(p).filter({ hasText: text }).first().locator('xpath=following-sibling::tr[1]');
const HAN = /[\u4e00-\u9fff]/;

mock = await startMockUpstream();
const admin = await openConsole({ locale: 'en-US' });
const { gw, page } = admin;
await seedChannel(gw.ctx, { baseUrl: mock.url, key: 'sk-upstream-good', models: ['gpt-4o-mini'] });
const root = await loginViaApi(page, gw.url, ROOT, '/personal');
rootId = Number(root.id);
await page.evaluate(() => localStorage.setItem('i18nextLng', 'en'));

// A real call through the relay: gpt-4o-mini is priced by the built-in table (ratio 0.075, completion 4).
const token = await seedToken(gw.ctx, { userId: rootId, remain: 10_000_000 });
const res = await fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] }),
});
expect(res.status).toBe(200);
const ago = todayAgo(60);
const row = {
  user_id: rootId,
  username: 'root',
  token_name: 'old-key',
  token_id: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  use_time: 0,
  first_time: 0,
  is_stream: 0,
  channel_id: 1,
  group: 'default',
  ip: '',
  request_id: '',
};
await gw.ctx.logDb.db
  .insertInto('logs')
  .values([
    // Written before the server sent codes: its stored text is all there is.
    {
      ...row,
      created_at: ago(60),
      type: 2,
      content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00',
      model_name: 'old-model',
      quota: 10,
      other: JSON.stringify({ model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, model_price: -1 }),
    },
    // A failed task's refund, as the task poller writes it.
    {
      ...row,
      created_at: ago(30),
      type: 2,
      content: '任务 task-77 失败，退还 50000（upstream failed）',
      model_name: 'suno_music',
      quota: -50_000,
      other: JSON.stringify({
        content_code: 'task_refund',
        task_id: 'task-77',
        refund: true,
        reason: 'upstream failed',
      }),
    },
  ])
  .execute();
await gw.ctx.logDb.db.deleteFrom('logs').where('content', 'like', 'Initial root quota%').execute();

afterAll(async () => {
  await mock?.close();
});

describe('server-written text in the reader language (issue 27, point 3)', () => {
  test('a redemption error reads in English', async () => {
    await page.goto(`${gw.url}/topup`);
    await settle(page);
    await page.getByPlaceholder(/redemption code/i).fill('not-a-real-code');
    await toastAfter(page, 'Redemption failed: the code is not valid', () =>
      page.getByTestId('redeem-submit').click(),
    );
    expect(await page.locator('.ant-message').innerText()).not.toMatch(HAN);
  });

  test('a redemption is logged in English', async () => {
    const created = await page
      .context()
      .request.post(`${gw.url}/api/redemption/`, {
        data: { name: 'e2e', quota: 500_000, count: 1 },
        headers: { 'New-API-User': String(rootId) },
      })
      .then((r) => r.json() as Promise<{ data: string[] }>);
    await page.getByPlaceholder(/redemption code/i).fill(created.data[0]);
    await page.getByTestId('redeem-submit').click();
    await poll(() => page.locator('.ant-modal').innerText()).toContain('$1.00');
    await page.locator('.ant-modal').getByRole('button').last().click();

    await page.goto(`${gw.url}/log`);
    await settle(page);
    const topup = rows(page).filter({ hasText: 'Top-up' });
    await poll(() => topup.innerText()).toMatch(/Redeemed \$1\.00 with code #\d+/);
  });

  test('a relayed call and a refund read in English; an old row keeps its stored text', async () => {
    const call = rows(page).filter({ hasText: 'gpt-4o-mini' });
    await poll(() => call.innerText()).toContain('Model ratio 0.075, completion ratio 4, group ratio 1');
    expect(await call.innerText()).not.toMatch(HAN);
    const refund = rows(page).filter({ hasText: 'suno_music' });
    expect(await refund.innerText()).toContain('Task task-77 failed: $0.10 refunded (upstream failed)');
    expect(await rows(page).filter({ hasText: 'old-model' }).innerText()).toContain('模型倍率 0.07');
  });
});

describe('the billing explanation agrees with itself (issue 27, point 4)', () => {
  test('the formula shows its exact figure and the quota it was rounded to; the ratio is one figure', async () => {
    const log = await gw.ctx.logDb.db
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', 'gpt-4o-mini')
      .executeTakeFirstOrThrow();
    const exact = (Number(log.prompt_tokens) + Number(log.completion_tokens) * 4) * 0.075;
    const quota = Number(log.quota);
    expect(quota).toBe(Math.max(1, Math.round(exact)));
    await expandRow(page, 'gpt-4o-mini');
    const details = expandedUnder(page, 'gpt-4o-mini');
    const billing = details.getByTestId('log-billing');
    await poll(() => billing.innerText()).toContain('Model ratio 0.075');
    const text = await billing.innerText();
    // Figures as computed, without float noise: 8.25 quota, $0.0000165.
    const plain = (v: number) =>
      Number(v.toPrecision(10))
        .toFixed(12)
        .replace(/\.?0+$/, '');
    expect(text).toContain(`= $${plain(exact / 500_000)}`);
    if (Number.isInteger(exact)) expect(text).toContain(`= ${quota} quota`);
    else expect(text).toContain(`= ${plain(exact)} quota, rounded to ${quota} quota`);
    // The Details line above says the same ratio.
    expect(await details.innerText()).toContain('Model ratio 0.075, completion ratio 4, group ratio 1');
    expect(await details.innerText()).not.toContain('0.07,');
  });

  test('a refund shows as a refund, not as a consumption at ratio 0', async () => {
    const refund = rows(page).filter({ hasText: 'suno_music' });
    const cells = await refund.innerText();
    expect(cells).toContain('Refund');
    expect(cells).toContain('Refunded $0.10');
    expect(cells).not.toContain('Consumption');
    expect(cells).not.toContain('-$0.10');
    await expandRow(page, 'suno_music');
    const billing = expandedUnder(page, 'suno_music').getByTestId('log-billing');
    await poll(() => billing.innerText()).toBe('Task task-77 failed: 50000 quota ($0.10) refunded');
  });

  test('screenshots', async () => {
    await shootAll(page, 'log-text', (p) => expandRow(p, 'gpt-4o-mini'));
    // The one error is the refused redemption's 400 above.
    expect(admin.errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  });
});
