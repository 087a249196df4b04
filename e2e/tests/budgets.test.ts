import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { BUDGET_MODEL, gatedUpstream } from '../../server/test/support/budget-relay.ts';
import { flushLedger, seedChannel, seedUser } from '../../server/test/support/relay-seed.ts';
import {
  loginViaApi,
  type OpenedPage,
  openConsole,
  openPage,
  ROOT,
  settle,
  shootAll,
  toastAfter,
} from '../support/index.ts';

/**
 * Periodic budgets in the console: a user gives a token a daily budget (and another one a custom 10-day period)
 * in the token drawer, an administrator gives a user a monthly one in the user drawer, and both lists show the
 * amount, what is spent this period and when it renews. A budget the server refuses (an amount past 2^53, which the number field lets through) shows
 * the server's message and changes nothing. Requests relayed through a mock upstream move the spent figures;
 * the user sees their own account budget above their tokens.
 *
 * Quota is shown in dollars (the default, 500000 quota = $1). Every call costs a fixed $0.50 (ModelPrice):
 * the token's daily budget of $2.00 holds 4 calls, the user's monthly budget is $10.00.
 */
const ALICE = { username: 'alice', password: 'alice-pass-1234' };
const CALL = 250_000;
const TOKEN_BUDGET = 4 * CALL;
const USER_BUDGET = 20 * CALL;
/** What a person types in a budget field for an amount of quota: dollars at 500000 quota per $1. */
const usd = (quota: number) => String(quota / 500_000);

let upstream: Awaited<ReturnType<typeof gatedUpstream>>;
let admin: OpenedPage;
let aliceId: number;
let apiKey: string;

const rows = (p: Page) => p.locator('.ant-table-tbody tr.ant-table-row');
const cellOf = (p: Page, name: string) => rows(p).filter({ hasText: name }).getByTestId('budget-cell');
const cellText = async (p: Page, name: string) => (await cellOf(p, name).innerText()).split('\n');
/** Page errors, less the 400 the browser logs for a save the server refused on purpose. */
const unexpected = (o: OpenedPage) => o.errors.filter((e) => !e.includes('status of 400 (Bad Request)'));
const option = (p: Page, label: string) =>
  p.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: label });

/** Scrolls the drawer so that a field and its help text sit in the middle of the screen. */
const centre = (p: Page, field: string) =>
  p.locator(field).evaluate((el) => el.closest('.ant-form-item')?.scrollIntoView({ block: 'center' }));

const pad = (n: number) => String(n).padStart(2, '0');
/** Local "MM-DD HH:mm" or "YYYY-MM-DD HH:mm" (the browser, the gateway and this process share the zone). */
const local = (d: Date, withYear = false) =>
  `${withYear ? `${d.getFullYear()}-` : ''}${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** A renewal as a list shows it: without the year unless it falls in another year. */
const inList = (d: Date) => local(d, d.getFullYear() !== new Date().getFullYear());

/** The next 07:30 after now, and the first of next month at 00:00. */
function nextDaily(): Date {
  const now = new Date();
  const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), 7, 30);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at;
}
const nextMonth = () => new Date(new Date().getFullYear(), new Date().getMonth() + 1, 1);

const tokenRow = () =>
  gw.ctx.db.db
    .selectFrom('tokens')
    .selectAll()
    .where('user_id', '=', aliceId)
    .where('name', '=', 'daily-cap')
    .executeTakeFirstOrThrow();
const userRow = () =>
  gw.ctx.db.db.selectFrom('users').selectAll().where('id', '=', aliceId).executeTakeFirstOrThrow();

upstream = await gatedUpstream();
const alice = await openConsole();
const { gw, browser } = alice;
await gw.ctx.options.set('ModelPrice', JSON.stringify({ [BUDGET_MODEL]: 0.5 }));
await seedChannel(gw.ctx, { baseUrl: upstream.url, key: 'sk-upstream', models: [BUDGET_MODEL] });
aliceId = (await seedUser(gw.ctx, { quota: 1_000 * 500_000, ...ALICE })).id;
await loginViaApi(alice.page, gw.url, ALICE, '/token');
admin = await openPage(browser);
await loginViaApi(admin.page, gw.url, ROOT, '/user');

afterAll(async () => {
  await upstream?.close();
});

describe('periodic budgets in the console', () => {
  test('a user creates a token with a daily budget and the list shows it', async () => {
    const page = alice.page;
    await settle(page);
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('daily-cap');
    await page.locator('#token_unlimited_quota').click();
    // The period stays off until there is an amount.
    expect(await page.locator('#token_budget_period').isDisabled()).toBe(true);
    // The amount is in dollars (the display currency); beside it, the quota it stores.
    await page.locator('#token_budget_quota').fill(usd(TOKEN_BUDGET));
    const amountItem = page.locator('.ant-form-item').filter({ has: page.locator('#token_budget_quota') });
    await expect.poll(() => amountItem.innerText()).toContain('= 1,000,000 额度');
    await page.locator('#token_budget_period').click();
    await option(page, '每天').click();
    // A daily budget takes a time of day, midnight unless changed.
    const reset = page.locator('#token_budget_reset');
    await expect.poll(() => reset.inputValue()).toBe('00:00');
    expect(await page.getByText('每天在此时刻续期（网关服务器所在时区）').count()).toBe(1);
    await reset.click();
    await reset.fill('07:30');
    await reset.press('Enter');
    await expect.poll(() => reset.inputValue()).toBe('07:30');
    await toastAfter(page, '令牌创建成功！', () => page.getByTestId('token-submit').click());

    const row = await tokenRow();
    apiKey = `sk-${row.key}`;
    expect(row).toMatchObject({
      name: 'daily-cap',
      budget_quota: TOKEN_BUDGET,
      budget_period: 'daily',
      budget_period_days: 0,
      budget_used: 0,
      budget_reset_at: nextDaily().getTime() / 1000,
    });
    expect(row.budget_reset_time).toMatch(/^\d{4}-\d\d-\d\d 07:30$/);
    await expect
      .poll(() => cellText(page, 'daily-cap'))
      .toEqual(['$0.00 / $2.00 · 每天', `${inList(nextDaily())} 续期`]);
    expect(alice.errors).toEqual([]);
  });

  test('opened again, the drawer shows the saved budget; an amount the server refuses changes nothing', async () => {
    const page = alice.page;
    await rows(page).filter({ hasText: 'daily-cap' }).getByRole('button', { name: '编辑' }).click();
    await expect.poll(() => page.locator('#token_budget_quota').inputValue()).toBe(usd(TOKEN_BUDGET));
    expect(await page.locator('#token_budget_period').locator('..').locator('..').innerText()).toContain(
      '每天',
    );
    expect(await page.locator('#token_budget_reset').inputValue()).toBe('07:30');

    const before = await tokenRow();
    await page.locator('#token_name').fill('renamed');
    // The number field takes any amount; past 2^53 quota the server says no.
    await page.locator('#token_budget_quota').fill(usd(1e20));
    await toastAfter(page, 'budget_quota is too large', () => page.getByTestId('token-submit').click());
    // The drawer stays open with what was typed, and the row is as it was.
    expect(await page.locator('#token_name').inputValue()).toBe('renamed');
    expect(await tokenRow()).toEqual(before);
    await page.getByRole('button', { name: '取消' }).click();
    await page.reload();
    await settle(page);
    expect(await rows(page).filter({ hasText: 'renamed' }).count()).toBe(0);
    expect(await cellText(page, 'daily-cap')).toEqual([
      '$0.00 / $2.00 · 每天',
      `${inList(nextDaily())} 续期`,
    ]);
  });

  test('a custom period renews every n days from its first day', async () => {
    const page = alice.page;
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#token_name').fill('ten-days');
    await page.locator('#token_budget_quota').fill(usd(2 * CALL));
    await page.locator('#token_budget_period').click();
    await option(page, '自定义天数').click();
    // From today at midnight, unless changed; 30 days unless changed.
    const today = new Date(new Date().setHours(0, 0, 0, 0));
    await expect.poll(() => page.locator('#token_budget_reset').inputValue()).toBe(local(today, true));
    expect(await page.locator('#token_budget_period_days').inputValue()).toBe('30');
    await page.locator('#token_budget_period_days').fill('10');
    await toastAfter(page, '令牌创建成功！', () => page.getByTestId('token-submit').click());
    const renews = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 10);
    const row = await gw.ctx.db.db
      .selectFrom('tokens')
      .selectAll()
      .where('name', '=', 'ten-days')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      budget_quota: 2 * CALL,
      budget_period: 'custom',
      budget_period_days: 10,
      budget_reset_time: local(today, true),
      budget_reset_at: renews.getTime() / 1000,
    });
    await expect
      .poll(() => cellText(page, 'ten-days'))
      .toEqual(['$0.00 / $1.00 · 每 10 天', `${inList(renews)} 续期`]);
  });

  test('an admin sets a monthly budget on a user and the user list shows it', async () => {
    const page = admin.page;
    await settle(page);
    await rows(page).filter({ hasText: 'alice' }).getByRole('button', { name: '编辑' }).click();
    await expect.poll(() => page.locator('#editUser_username').inputValue()).toBe('alice');
    expect(await page.locator('#editUser_budget_quota').inputValue()).toBe('0');

    // First a refused amount: the message is the server's, and nothing is saved.
    const before = await userRow();
    await page.locator('#editUser_display_name').fill('Alice B.');
    await page.locator('#editUser_budget_quota').fill(usd(1e20));
    await page.locator('#editUser_budget_period').click();
    await option(page, '每月').click();
    await toastAfter(page, 'budget_quota is too large', () =>
      page.getByRole('button', { name: '保存' }).click(),
    );
    expect(await userRow()).toEqual(before);

    await page.locator('#editUser_budget_quota').fill(usd(USER_BUDGET));
    // A monthly budget takes a date and time: the first of this month, midnight, unless changed.
    const first = new Date(new Date().getFullYear(), new Date().getMonth(), 1);
    expect(await page.locator('#editUser_budget_reset').inputValue()).toBe(local(first, true));
    expect(
      await page.getByText('在此日期和时刻续期，之后每个周期重复一次（网关服务器所在时区）').count(),
    ).toBe(1);
    await toastAfter(page, '用户信息更新成功！', () => page.getByRole('button', { name: '保存' }).click());

    expect(await userRow()).toMatchObject({
      display_name: 'Alice B.',
      budget_quota: USER_BUDGET,
      budget_period: 'monthly',
      budget_reset_time: local(first, true),
      budget_used: 0,
      budget_reset_at: nextMonth().getTime() / 1000,
    });
    await expect
      .poll(() => cellText(page, 'alice'))
      .toEqual(['$0.00 / $10.00 · 每月', `${inList(nextMonth())} 续期`]);
    // The root account has no budget: a dash.
    expect(await rows(page).filter({ hasText: 'root' }).locator('td').nth(4).innerText()).toBe('-');
    expect(unexpected(admin)).toEqual([]);
  });

  test('relayed requests move the spent figures; a spent budget refuses with its renewal time', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const call = () =>
      client.chat.completions.create({ model: BUDGET_MODEL, messages: [{ role: 'user', content: 'hi' }] });
    for (let i = 0; i < 3; i++) await call();
    await flushLedger(gw.ctx);

    await alice.page.reload();
    await settle(alice.page);
    await expect
      .poll(() => cellText(alice.page, 'daily-cap'))
      .toEqual(['$1.50 / $2.00 · 每天', `${inList(nextDaily())} 续期`]);
    await admin.page.reload();
    await settle(admin.page);
    await expect
      .poll(() => cellText(admin.page, 'alice'))
      .toEqual(['$1.50 / $10.00 · 每月', `${inList(nextMonth())} 续期`]);

    // The fourth call spends the rest of the day; the fifth is refused until 07:30.
    await call();
    const refused = await call().then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    const err = refused as InstanceType<typeof OpenAI.APIError>;
    expect(err.status).toBe(429);
    expect(err.code).toBe('budget_exceeded');
    expect(err.message).toContain(
      `budget exceeded: this API key's daily budget of $2.000000 is used up; it renews at ${local(nextDaily(), true)} (UTC`,
    );
    await flushLedger(gw.ctx);
    expect((await tokenRow()).budget_used).toBe(TOKEN_BUDGET);

    await alice.page.reload();
    await settle(alice.page);
    await expect
      .poll(() => cellText(alice.page, 'daily-cap'))
      .toEqual(['$2.00 / $2.00 · 每天', `${inList(nextDaily())} 续期`]);
    // A spent budget's bar turns red.
    expect(await cellOf(alice.page, 'daily-cap').locator('.ant-progress-status-exception').count()).toBe(1);
  });

  test("the user sees their account's budget above their tokens", async () => {
    const page = alice.page;
    const alert = page.getByTestId('self-budget');
    await expect
      .poll(() => alert.innerText())
      .toBe(`账户周期预算：本期已用 $2.00 / $10.00（每月），${local(nextMonth(), true)} 续期`);
    expect(await alert.getAttribute('class')).toContain('ant-alert-info');
    expect(unexpected(alice)).toEqual([]);
  });

  test('screenshots of the token list and the token drawer with a budget', async () => {
    await shootAll(alice.page, 'budgets-tokens');
    await shootAll(alice.page, 'budgets-token-drawer', async (p) => {
      await rows(p)
        .filter({ hasText: 'daily-cap' })
        .getByRole('button', { name: /编辑|Edit/ })
        .click();
      await centre(p, '#token_budget_reset');
    });
  });

  test('screenshots of the user list and the user drawer with a budget', async () => {
    await shootAll(admin.page, 'budgets-users');
    // The drawer has its own address, so it is open again after each reload.
    await admin.page.goto(`${gw.url}/user/edit/${aliceId}`);
    await shootAll(admin.page, 'budgets-user-drawer', async (p) => {
      await centre(p, '#editUser_budget_reset');
    });
  });
});
