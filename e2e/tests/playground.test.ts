import { afterAll, describe, expect, test } from 'vitest';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import { loginViaApi, openConsole, ROOT, settle, shootAll } from '../support/index.ts';

/** Chatting in /playground against a mock upstream replaying a recorded OpenAI stream. */
let mock: MockUpstream;

mock = await startMockUpstream();
const opened = await openConsole();
const { gw, page } = opened;
await seedChannel(gw.ctx, {
  baseUrl: mock.url,
  key: 'sk-upstream-good',
  models: ['gpt-4o-mini', 'gpt-4o'],
});
await loginViaApi(page, gw.url, ROOT, '/playground');

afterAll(async () => {
  await mock?.close();
});

const assistant = () => page.locator('[data-testid="msg-assistant"]');

describe('playground', () => {
  test('defaults to gpt-4o-mini and streams an answer', async () => {
    await settle(page);
    await expect
      .poll(() =>
        page
          .locator('.ant-select-content, .ant-select-selection-item')
          .filter({ hasText: 'gpt-4o-mini' })
          .count(),
      )
      .toBeGreaterThan(0);
    const input = page.getByRole('textbox', { name: '输入消息，Enter 发送，Shift+Enter 换行' });
    await input.fill('Invent a holiday');
    await input.press('Enter');
    const reply = assistant().last();
    await expect.poll(() => reply.getAttribute('data-status'), { timeout: 15_000 }).toBe('complete');
    expect(await reply.innerText()).toContain('Harmony Day');
    // The request carried the chosen model and group, the user's words, and no preset greeting.
    const sent = mock.requests[mock.requests.length - 1].body;
    expect(sent.model).toBe('gpt-4o-mini');
    expect(sent.stream).toBe(true);
    expect(sent.messages).toEqual([{ role: 'user', content: 'Invent a holiday' }]);
  });

  test('stop ends a slow stream with what arrived, and clear starts over', async () => {
    mock.chunkDelayMs = 150;
    const input = page.getByRole('textbox', { name: '输入消息，Enter 发送，Shift+Enter 换行' });
    await input.fill('Another one');
    await input.press('Enter');
    const reply = assistant().last();
    await expect.poll(() => reply.getAttribute('data-status')).toBe('incomplete');
    await page.getByRole('button', { name: '停止' }).click();
    await expect.poll(() => reply.getAttribute('data-status')).toBe('complete');
    mock.chunkDelayMs = 0;
    expect((await reply.innerText()).length).toBeLessThan(400);

    await page.getByRole('button', { name: '清除上下文' }).click();
    await expect.poll(() => assistant().count()).toBe(1);
  });

  test('a refused request shows the error on the message', async () => {
    // A priced model no channel serves: the gateway answers 503 in OpenAI's error shape.
    await page.route('**/api/user/models', (route) =>
      route.fulfill({ json: { success: true, message: '', data: ['gpt-4.1'] } }),
    );
    await page.reload();
    await settle(page);
    const input = page.getByRole('textbox', { name: '输入消息，Enter 发送，Shift+Enter 换行' });
    await input.fill('hello?');
    await input.press('Enter');
    const reply = assistant().last();
    await expect.poll(() => reply.getAttribute('data-status')).toBe('error');
    expect(await reply.innerText()).toMatch(/no available channel/);
    await page.unroute('**/api/user/models');
  });

  test('screenshots', async () => {
    await page.reload();
    await settle(page);
    const input = page.getByRole('textbox', { name: '输入消息，Enter 发送，Shift+Enter 换行' });
    await input.fill('Invent a holiday');
    await input.press('Enter');
    await expect
      .poll(() => assistant().last().getAttribute('data-status'), { timeout: 15_000 })
      .toBe('complete');
    await shootAll(page, 'playground');
  });
});
