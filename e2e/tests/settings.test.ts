import { afterAll, describe, expect, test } from 'vitest';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, ROOT, settle, shootAll, toastAfter } from '../support/index.ts';

/** An admin changes settings on /setting and sees their effect on the relay and on /pricing. */
let mock: MockUpstream;

mock = await startMockUpstream();
const admin = await openConsole();
const { gw, page } = admin;
await seedChannel(gw.ctx, {
  baseUrl: mock.url,
  key: 'sk-upstream-good',
  models: ['gpt-4o-mini', 'e2e-model'],
});
await loginViaApi(page, gw.url, ROOT, '/setting');

afterAll(async () => {
  await mock?.close();
});

describe('settings page', () => {
  test('turning on a sensitive word makes the relay refuse a prompt with it', async () => {
    const user = await seedUser(gw.ctx, { quota: 10_000_000 });
    const token = await seedToken(gw.ctx, { userId: user.id, remain: 10_000_000 });
    const chat = (content: string) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
      });
    expect((await chat('what about e2e-secret-plan?')).status).toBe(200);

    await settle(page);
    const words = page.locator('#SensitiveWords');
    await words.fill('e2e-secret-plan\nanother-word');
    await toastAfter(page, '保存成功', () => page.getByTestId('save-settings.section.sensitive').click());

    const refused = await chat('what about E2E-SECRET-PLAN?');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.code).toBe('sensitive_words_detected');

    // Saving again without a change only warns.
    await toastAfter(page, '你似乎并没有修改什么', () =>
      page.getByTestId('save-settings.section.sensitive').click(),
    );
  });

  test('JSON fields are checked when they lose focus', async () => {
    const chats = page.locator('#Chats');
    await chats.fill('[{"broken": ');
    await chats.blur();
    await expect.poll(() => page.getByText('不是合法的 JSON 字符串').count()).toBeGreaterThan(0);
    await chats.fill('[]');
    await chats.blur();
    await expect.poll(() => page.getByText('不是合法的 JSON 字符串').count()).toBe(0);
  });

  test('a price set in the visual editor shows on /pricing', async () => {
    await page.getByRole('tab', { name: '可视化倍率设置' }).click();
    await page.getByRole('button', { name: '添加模型' }).click();
    const modal = page.locator('.ant-modal').filter({ hasText: '添加模型' });
    await modal.locator('#name').fill('e2e-model');
    await modal.locator('#ratio').fill('abc');
    await modal.locator('.ant-modal-footer .ant-btn-primary').click();
    await expect.poll(() => modal.getByText('请输入数字').count()).toBeGreaterThan(0);
    await modal.locator('#ratio').fill('3');
    await modal.locator('#completionRatio').fill('2');
    await expect.poll(() => modal.getByText('输入 $6 / 1M Tokens，输出 $12 / 1M Tokens').count()).toBe(1);
    await modal.locator('.ant-modal-footer .ant-btn-primary').click();
    await toastAfter(page, '保存成功', () => page.getByRole('button', { name: '应用更改' }).click());

    await page.goto(`${gw.url}/pricing`);
    await settle(page);
    const row = page.locator('tr').filter({ hasText: 'e2e-model' });
    await expect.poll(() => row.getByText('提示 $6 / 1M Tokens').count()).toBe(1);
    await expect.poll(() => row.getByText('补全 $12 / 1M Tokens').count()).toBe(1);
  });

  test('turning off password login asks first, and cancelling keeps it on', async () => {
    await page.goto(`${gw.url}/setting?tab=system`);
    await settle(page);
    const toggle = page.getByRole('switch', { name: '允许通过密码进行登录' });
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await toggle.click();
    const confirm = page.locator('.ant-modal-confirm');
    await expect.poll(() => confirm.count()).toBe(1);
    await confirm.locator('.ant-btn').first().click();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
  });

  test('the price options include the audio ratios realtime sessions are billed with', async () => {
    await page.goto(`${gw.url}/setting?tab=operation`);
    await settle(page);
    for (const [id, label] of [
      ['AudioRatio', '音频倍率'],
      ['AudioCompletionRatio', '音频补全倍率'],
    ]) {
      await expect.poll(() => page.locator(`#${id}`).count()).toBe(1);
      await expect.poll(() => page.getByText(label, { exact: true }).count()).toBe(1);
    }
    const audio = page.locator('#AudioRatio');
    await audio.fill('{"gpt-realtime": "eight"}');
    await audio.blur();
    await expect
      .poll(() => page.getByText('必须是 {"模型": 非负数字} 形式的 JSON').count())
      .toBeGreaterThan(0);
  });

  for (const tab of ['operation', 'system', 'other']) {
    test(`screenshots of the ${tab} tab`, async () => {
      await page.goto(`${gw.url}/setting?tab=${tab}`);
      await settle(page);
      await shootAll(page, `settings-${tab}`);
      expect(admin.errors).toEqual([]);
    });
  }
});
