import { describe, expect, test } from 'vitest';
import { LAPTOP, loginViaApi, openConsole, poll, ROOT, settle, shootAll } from '../support/index.ts';

/**
 * Issue 27 point 9 (and the doubled toast of point 11): the channel form marks its required fields, shows each
 * problem at its field, refuses a negative weight instead of turning it into 0, and asks about a trailing /v1 with
 * buttons that say what they do, once per address.
 */

const drawer = () => page.locator('.ant-drawer-open');
const fieldErrors = () => page.locator('.ant-form-item-explain-error').allInnerTexts();
const toasts = (text: string) => page.locator('.ant-message-notice').filter({ hasText: text });
const submit = () => page.getByTestId('channel-submit').click();
const v1Dialog = () => page.locator('.ant-modal-confirm').filter({ hasText: 'ends with /v1' });
const channels = () =>
  gw.ctx.db.db.selectFrom('channels').select(['id', 'name', 'base_url', 'weight']).execute();

async function openAdd() {
  await page.goto(`${gw.url}/channel/add`);
  await settle(page);
  await poll(() => drawer().getByText('Create a channel', { exact: false }).count()).toBeGreaterThan(0);
}

const opened = await openConsole({ locale: 'en-US', viewport: LAPTOP });
const { gw, page } = opened;
await loginViaApi(page, gw.url, ROOT, '/channel');

describe('channel form', () => {
  test('marks the required fields and shows an empty submit at the fields, with one toast', async () => {
    await openAdd();
    for (const id of ['channel_name', 'channel_key', 'channel_models']) {
      const label = drawer().locator(`label[for="${id}"]`);
      expect(await label.getAttribute('class'), id).toContain('ant-form-item-required');
    }
    // Counts the toasts on screen after every change of the page, to see the most shown at once.
    await page.evaluate(() => {
      const w = window as unknown as { mostToasts: number };
      w.mostToasts = 0;
      new MutationObserver(() => {
        const shown = document.querySelectorAll('.ant-message-notice').length;
        w.mostToasts = Math.max(w.mostToasts, shown);
      }).observe(document.body, { subtree: true, childList: true });
    });
    await submit();
    await submit();
    await poll(fieldErrors).toEqual(
      expect.arrayContaining(['Enter the channel name', 'Enter the channel key']),
    );
    await poll(() => toasts('Please check your input').count()).toBe(1);
    // Clicked twice, never two toasts: the second replaces the first.
    expect(await page.evaluate(() => (window as unknown as { mostToasts: number }).mostToasts)).toBe(1);
    expect(await channels()).toEqual([]);
    await shootAll(page, 'channel-form-errors', async (p) => {
      await p.getByTestId('channel-submit').click();
      await p.locator('.ant-form-item-explain-error').first().waitFor();
    });
  });

  test('refuses a weight of -3 at the field instead of saving 0', async () => {
    await openAdd();
    await page.locator('#channel_name').fill('weighted');
    await page.locator('#channel_key').fill('sk-weighted');
    await page.locator('#channel_weight').fill('-3');
    await page.locator('#channel_weight').blur();
    expect(await page.locator('#channel_weight').inputValue()).toBe('-3');
    await submit();
    await poll(fieldErrors).toContain('The weight must be a whole number, 0 or more');
    expect(await channels()).toEqual([]);
    await page.locator('#channel_weight').fill('5');
    await submit();
    await poll(async () => (await channels()).map((c) => [c.name, Number(c.weight)])).toEqual([
      ['weighted', 5],
    ]);
  });

  test('a name is capped at 64 characters, with a count', async () => {
    await openAdd();
    await page.locator('#channel_name').fill('n'.repeat(80));
    expect(await page.locator('#channel_name').inputValue()).toHaveLength(64);
    expect(await drawer().locator('.ant-input-show-count-suffix').first().innerText()).toBe('64 / 64');
  });

  test('asks about /v1 with buttons that say what they do, and not again for the saved address', async () => {
    await openAdd();
    await page.locator('#channel_name').fill('keeps v1');
    await page.locator('#channel_key').fill('sk-v1');
    await page.locator('#channel_base_url').fill('https://llm.example.com/v1');
    await submit();
    await poll(() => v1Dialog().count()).toBe(1);
    const text = await v1Dialog().innerText();
    expect(text).toContain('this is usually https://llm.example.com;');
    for (const name of ['Remove /v1 and save', 'Keep /v1 and save', 'Back to the form'])
      expect(await v1Dialog().getByRole('button', { name }).count(), name).toBe(1);
    await v1Dialog().getByRole('button', { name: 'Keep /v1 and save' }).click();
    await poll(async () => (await channels()).find((c) => c.name === 'keeps v1')?.base_url).toBe(
      'https://llm.example.com/v1',
    );
    const id = (await channels()).find((c) => c.name === 'keeps v1')?.id;

    // A later save of the same channel does not ask again.
    await page.goto(`${gw.url}/channel/edit/${id}`);
    await settle(page);
    await poll(() => page.locator('#channel_name').inputValue()).toBe('keeps v1');
    await page.locator('#channel_priority').fill('2');
    await submit();
    await poll(
      async () => (await channels()).find((c) => c.id === id) && page.locator('.ant-drawer-open').count(),
    ).toBe(0);
    expect(await v1Dialog().count()).toBe(0);

    // Another channel: remove /v1.
    await openAdd();
    await page.locator('#channel_name').fill('drops v1');
    await page.locator('#channel_key').fill('sk-v1b');
    await page.locator('#channel_base_url').fill('https://llm.example.com/v1');
    await submit();
    await poll(() => v1Dialog().count()).toBe(1);
    await v1Dialog().getByRole('button', { name: 'Remove /v1 and save' }).click();
    await poll(async () => (await channels()).find((c) => c.name === 'drops v1')?.base_url).toBe(
      'https://llm.example.com',
    );
    expect(opened.errors).toEqual([]);
  });

  test("shows each type's own fields as its channel type declares them", async () => {
    const pickType = async (label: string) => {
      await page.locator('#channel_type').click();
      await page.keyboard.type(label);
      await page.locator('.ant-select-item-option').filter({ hasText: label }).first().click();
    };
    const label = (text: string) => drawer().locator('label').filter({ hasText: text });
    await openAdd();
    // OpenAI: the organization field, and no `other` field.
    await poll(() => label('OpenAI organization').count()).toBe(1);
    expect(await drawer().locator('#channel_other').count()).toBe(0);

    await pickType('Azure OpenAI (3)');
    await poll(() => label('API version').count()).toBe(1);
    expect(await drawer().getByText('Azure endpoint, e.g.', { exact: false }).count()).toBe(1);
    expect(await label('OpenAI organization').count()).toBe(0);

    // Spark: a version picker that starts at v2.1, the version a new Spark channel is saved with.
    await pickType('iFlytek Spark (18)');
    await poll(() => label('Spark version').count()).toBe(1);
    const sparkItem = drawer()
      .locator('.ant-form-item')
      .filter({ has: page.locator('label', { hasText: 'Spark version' }) });
    await poll(() => sparkItem.innerText()).toContain('v2.1');

    // Vertex AI: the key is a JSON document in a text area; the region has a template.
    await pickType('Vertex AI (41)');
    await poll(() => label('Service-account JSON').count()).toBe(1);
    expect(await drawer().locator('textarea#channel_key').count()).toBe(1);
    await drawer().getByRole('button', { name: 'Fill template' }).first().click();
    await poll(() => page.locator('#channel_other').inputValue()).toContain('"default": "us-central1"');

    await pickType('Cloudflare (39)');
    await poll(() => label('Account ID').count()).toBe(1);
    expect(await drawer().locator('input#channel_key').count()).toBe(1);
    expect(opened.errors).toEqual([]);
  });
});
