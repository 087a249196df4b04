import { afterAll, describe, expect, test } from 'vitest';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import {
  LAPTOP,
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  rootApiKey,
  settle,
  shootAll,
} from '../support/index.ts';

/**
 * Issue 27 point 6: a multi-key channel shows its key count in the list and each key's label and state in the
 * drawer; one key can be tested, a refused key is disabled by itself, and a caller gets the gateway's own error.
 */
let mock: MockUpstream;
let channelId = 0;
let apiKey = '';

const keyRows = () => page.getByTestId('channel-keys').locator('.ant-table-tbody tr.ant-table-row');

mock = await startMockUpstream();
const opened = await openConsole({ locale: 'en-US', viewport: LAPTOP });
const { gw, page } = opened;
({ id: channelId } = await seedChannel(gw.ctx, {
  baseUrl: mock.url,
  key: 'sk-key-alpha-0001\nsk-badkey-beta-0002',
  models: ['gpt-4o-mini'],
  name: 'pooled keys',
}));
apiKey = await rootApiKey(gw, 5_000_000);
await loginViaApi(page, gw.url, ROOT, '/channel');

afterAll(async () => {
  await mock?.close();
});

describe('multi-key channels', () => {
  test('the list shows how many keys are enabled', async () => {
    await settle(page);
    await poll(() => page.getByTestId(`key-count-${channelId}`).innerText()).toBe('2/2 keys');
  });

  test('the drawer shows each key by label and state; testing the refused key disables it alone', async () => {
    await page.goto(`${gw.url}/channel/edit/${channelId}`);
    await settle(page);
    await poll(() => keyRows().count()).toBe(2);
    expect(await keyRows().nth(0).innerText()).toContain('sk-…0001');
    expect(await keyRows().nth(1).innerText()).toContain('sk-…0002');
    expect(await page.getByTestId('channel-keys').innerText()).not.toContain('sk-badkey-beta-0002');

    await page.getByTestId('key-test-0').click();
    await poll(() => page.locator('.ant-message').innerText()).toContain('Key #0 passed');
    await page.getByTestId('key-test-1').click();
    await poll(() => page.locator('.ant-message').innerText()).toContain('Key #1 failed: HTTP 401');
    await poll(() => keyRows().nth(1).innerText()).toContain('Auto-disabled');
    expect(await keyRows().nth(0).innerText()).toContain('Enabled');
    await poll(() => page.getByTestId('channel-keys').innerText()).toContain('Keys (1 of 2 enabled)');
    const row = await gw.ctx.db.db
      .selectFrom('channels')
      .select(['status'])
      .where('id', '=', channelId)
      .executeTakeFirstOrThrow();
    expect(Number(row.status)).toBe(1);
    await shootAll(page, 'channel-key-test', async (p) => {
      await p.getByTestId('channel-keys').locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
    });
  });

  test('the list then says 1/2 keys, and requests keep working on the other key', async () => {
    await page.goto(`${gw.url}/channel`);
    await settle(page);
    await poll(() => page.getByTestId(`key-count-${channelId}`).innerText()).toBe('1/2 keys');
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
    }
    expect(opened.errors).toEqual([]);
  });
});
