import { describe, expect, test } from 'vitest';
import {
  createUserViaApi,
  loginViaApi,
  openConsole,
  poll,
  ROOT,
  SWEEP_COMBINATIONS,
  settle,
  shootAll,
} from '../support/index.ts';

/** Root changes a channel and a setting, then reads, filters, expands and verifies them on /audit. */
let rootId = 0;

const call = async (method: 'post' | 'put', path: string, data: unknown) => {
  const res = await page
    .context()
    .request[method](`${gw.url}${path}`, { data, headers: { 'New-API-User': String(rootId) } });
  const body = (await res.json()) as { success: boolean; message: string };
  if (!body.success) throw new Error(`${method} ${path}: ${body.message}`);
};

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');

const opened = await openConsole();
const { gw, page } = opened;
rootId = Number((await loginViaApi(page, gw.url, ROOT, '/personal')).id);
await call('post', '/api/channel/', {
  type: 1,
  name: 'audited-channel',
  key: 'sk-e2e-very-secret',
  base_url: 'http://127.0.0.1:9',
  models: 'gpt-4o-mini',
  group: 'default',
});
await call('put', '/api/option/', { key: 'ModelRatio', value: '{"gpt-4o-mini":0.075}' });
await createUserViaApi(page, gw.url, rootId, { username: 'carol', password: 'carol-pass-1' });

describe('audit log page', () => {
  test('the side nav leads root to the audit log, newest change first', async () => {
    await page.goto(`${gw.url}/personal`);
    await settle(page);
    await page.getByRole('menuitem', { name: '审计日志' }).click();
    await page.waitForURL((u) => u.pathname === '/audit');
    await poll(() => rows().count()).toBe(3);
    const first = await rows().first().innerText();
    expect(first).toContain('root');
    expect(first).toContain('/api/user');
    expect(first).toContain('127.0.0.1');
    expect(await rows().last().innerText()).toContain('channel:1');
  });

  test('a filter narrows the list and an entry opens to its before/after with the key redacted', async () => {
    await page.locator('.ant-select').first().click();
    await page.locator('.ant-select-dropdown').getByText('渠道', { exact: true }).click();
    await page
      .getByRole('button', { name: '搜 索' })
      .or(page.getByRole('button', { name: '搜索' }))
      .click();
    await poll(() => rows().count()).toBe(1);
    await rows().first().locator('.ant-table-row-expand-icon').click();
    const changes = page.getByTestId('audit-changes');
    await poll(() => changes.innerText()).toContain('audited-channel');
    const text = await changes.innerText();
    expect(text).toContain('[redacted]');
    expect(text).toContain('新建');
    expect(await page.content()).not.toContain('very-secret');
  });

  test('the chain verifies from the page', async () => {
    await page.getByRole('button', { name: '校验哈希链' }).click();
    await poll(() => page.getByTestId('audit-verify').innerText()).toContain('哈希链完整');
    expect(opened.errors).toEqual([]);
  });

  test('screenshots: light and dark, zh and en, desktop and phone', async () => {
    const files = await shootAll(page, 'audit', async (p) => {
      await p.locator('.ant-table-tbody tr.ant-table-row .ant-table-row-expand-icon').last().click();
      await p.getByTestId('audit-changes').waitFor();
    });
    expect(files).toHaveLength(SWEEP_COMBINATIONS);
    expect(opened.errors).toEqual([]);
  });
});
