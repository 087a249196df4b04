import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { fixtureText } from '../../server/test/support/fixtures.ts';
import { seedToken, seedUser } from '../../server/test/support/relay-seed.ts';
import {
  loginViaApi,
  openConsole,
  openPage,
  ROOT,
  settle,
  shootAll,
  shot,
  toast,
  toastAfter,
} from '../support/index.ts';

/** An admin adds a channel against a mock OpenAI upstream on /channel, fetches its models and tests it. */

let upstream: Server;
let upstreamUrl = '';

const rows = () => page.locator('.ant-table-tbody tr.ant-table-row');
const drawer = () => page.locator('.ant-drawer-open');

function startUpstream(): Promise<Server> {
  const chat = fixtureText('openai/chat/text.json');
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== 'Bearer good-key') {
      res.statusCode = 401;
      return res.end(
        JSON.stringify({
          error: {
            message: 'Incorrect API key provided',
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        }),
      );
    }
    if (req.url === '/v1/models') {
      const data = ['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small'].map((id) => ({
        id,
        object: 'model',
        created: 1700000000,
        owned_by: 'openai',
      }));
      return res.end(JSON.stringify({ object: 'list', data }));
    }
    if (req.url === '/v1/chat/completions') return res.end(chat);
    res.statusCode = 404;
    res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

upstream = await startUpstream();
upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
// Every column of the list shows from 1600 px (wide-tables.test.ts checks which give way at 1366 px).
const opened = await openConsole({ viewport: { width: 1680, height: 1000 } });
const { gw, browser, page } = opened;
// The mock upstream is on loopback, which the SSRF guard refuses unless the admin allows it.
await gw.ctx.options.set('fetch_setting.allow_private_ip', 'true');
await loginViaApi(page, gw.url, ROOT, '/channel');

afterAll(async () => {
  upstream?.close();
});

describe('channels page', () => {
  test('is titled 管理渠道 and starts empty', async () => {
    await settle(page);
    await expect.poll(() => page.getByText('管理渠道').count()).toBeGreaterThan(0);
    expect(await rows().count()).toBe(0);
  });

  test('the add form marks a missing name/key, no models and a bad mapping at the fields', async () => {
    await page.getByRole('button', { name: '添加渠道' }).click();
    await page.waitForURL((u) => u.pathname === '/channel/add');
    await expect.poll(() => drawer().getByText('创建新的渠道').count()).toBe(1);
    await page.getByTestId('channel-submit').click();
    const fieldErrors = () => page.locator('.ant-form-item-explain-error').allInnerTexts();
    await expect.poll(fieldErrors).toEqual(expect.arrayContaining(['请填写渠道名称', '请填写渠道密钥']));

    await page.locator('#channel_name').fill('mock upstream');
    await page.locator('#channel_base_url').fill(`${upstreamUrl}/`);
    await page.locator('#channel_key').fill('good-key');
    await drawer().getByRole('button', { name: '清除所有模型' }).click();
    await page.getByTestId('channel-submit').click();
    await expect.poll(fieldErrors).toContain('请至少选择一个模型！');

    await drawer().getByPlaceholder('输入自定义模型名称，多个用英文逗号分隔').fill('gpt-4.1-nano');
    await drawer().getByRole('button', { name: '填入', exact: true }).click();
    await page.locator('#channel_model_mapping').fill('{"gpt-4.1-nano": ');
    await page.locator('#channel_model_mapping').blur();
    await page.getByTestId('channel-submit').click();
    await expect
      .poll(() => page.locator('.ant-form-item-explain-error').allInnerTexts())
      .toContain('模型映射必须是合法的 JSON 格式！');
    expect(await gw.ctx.db.db.selectFrom('channels').selectAll().execute()).toEqual([]);
  });

  test('fetches the upstream model list and creates the channel', async () => {
    await page.locator('#channel_model_mapping').fill('');
    await toastAfter(page, '已获取 3 个模型', () =>
      drawer().getByRole('button', { name: '获取上游模型列表' }).click(),
    );
    await toastAfter(page, '渠道创建成功！', () => page.getByTestId('channel-submit').click());
    await page.waitForURL((u) => u.pathname === '/channel');
    await expect.poll(() => rows().count()).toBe(1);
    const [row] = await gw.ctx.db.db.selectFrom('channels').selectAll().execute();
    expect(row).toMatchObject({ name: 'mock upstream', base_url: upstreamUrl, key: 'good-key' });
    expect(row.models?.split(',')).toEqual(['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small']);
  });

  test('tests the channel and shows the response time', async () => {
    await rows()
      .first()
      .getByRole('button', { name: '测 试' })
      .or(rows().first().getByRole('button', { name: '测试' }))
      .first()
      .click();
    await expect.poll(() => toast(page, '测试成功').count()).toBeGreaterThan(0);
    await expect.poll(() => rows().first().innerText()).toMatch(/\d+\.\d{2,3} 秒/);
  });

  test('batch delete needs a selection; disable greys the row', async () => {
    await page.getByRole('switch', { name: '批量操作' }).click();
    await toastAfter(page, '请先选择要删除的通道！', () =>
      page.getByRole('button', { name: '删除所选渠道' }).click(),
    );
    await page.getByRole('switch', { name: '批量操作' }).click();
    await rows()
      .first()
      .getByRole('button', { name: '禁 用' })
      .or(rows().first().getByRole('button', { name: '禁用' }))
      .first()
      .click();
    await expect.poll(() => rows().first().innerText()).toContain('已禁用');
    await rows()
      .first()
      .getByRole('button', { name: '启 用' })
      .or(rows().first().getByRole('button', { name: '启用' }))
      .first()
      .click();
    await expect.poll(() => rows().first().innerText()).toContain('已启用');
    expect(opened.errors).toEqual([]);
  });

  test('tests with a model picked from a searchable list', async () => {
    await rows().first().locator('.ant-dropdown-trigger').first().click();
    await page.getByRole('menuitem', { name: '选择模型测试' }).click();
    const modal = page.locator('.ant-modal');
    await expect.poll(() => modal.getByText('共 3 个模型').count()).toBe(1);
    await modal.getByPlaceholder('搜索模型').fill('nano');
    await expect.poll(() => modal.getByText('共 1 个模型').count()).toBe(1);
    await toastAfter(page, '模型 gpt-4.1-nano', () =>
      modal.locator('.ant-list-item').getByRole('button').click(),
    );
    await modal.locator('.ant-modal-close').click();
  });

  test('the edit deep link loads the channel with a blank key, and saving keeps the key', async () => {
    const [ch] = await gw.ctx.db.db.selectFrom('channels').select('id').execute();
    await page.goto(`${gw.url}/channel/edit/${ch.id}`);
    await settle(page);
    await expect.poll(() => page.locator('#channel_name').inputValue()).toBe('mock upstream');
    expect(await page.locator('#channel_key').inputValue()).toBe('');
    await page.locator('#channel_priority').fill('3');
    await toastAfter(page, '渠道更新成功！', () => page.getByTestId('channel-submit').click());
    await page.waitForURL((u) => u.pathname === '/channel');
    const row = await gw.ctx.db.db
      .selectFrom('channels')
      .selectAll()
      .where('id', '=', ch.id)
      .executeTakeFirstOrThrow();
    expect(row.key).toBe('good-key');
    expect(Number(row.priority)).toBe(3);
  });

  test('tells an admin who is not root that repointing a channel needs its key, and refuses it without', async () => {
    const [ch] = await gw.ctx.db.db.selectFrom('channels').selectAll().execute();
    await seedUser(gw.ctx, { quota: 0, role: 10, username: 'ops-admin', password: 'ops-pass-1234' });
    const other = await openPage(browser);
    try {
      await loginViaApi(other.page, gw.url, { username: 'ops-admin', password: 'ops-pass-1234' });
      await other.page.goto(`${gw.url}/channel/edit/${ch.id}`);
      await settle(other.page);
      const notice = other.page.getByTestId('key-custody');
      await expect.poll(() => notice.innerText()).toContain('须重新填写密钥（只有 root 可保留原密钥）');
      await shot(other.page, 'channel-drawer-key-custody-admin');
      await other.page.locator('#channel_base_url').fill('http://127.0.0.1:9');
      await toastAfter(other.page, 'needs the keys entered again', () =>
        other.page.getByTestId('channel-submit').click(),
      );
      const row = await gw.ctx.db.db
        .selectFrom('channels')
        .selectAll()
        .where('id', '=', ch.id)
        .executeTakeFirstOrThrow();
      expect(row.base_url).toBe(ch.base_url);
      expect(row.key).toBe('good-key');
      // The browser logs the refused save (403) itself; nothing else may go wrong.
      expect(other.errors.filter((e) => !e.includes('status of 403'))).toEqual([]);
    } finally {
      await other.context.close();
    }
    // Root reads that it may keep the keys.
    await page.goto(`${gw.url}/channel/edit/${ch.id}`);
    await settle(page);
    await expect.poll(() => page.getByTestId('key-custody').innerText()).toContain('作为 root');
    await page.goto(`${gw.url}/channel`);
    await settle(page);
  });

  test('copies a channel, edits priority in place, tags both and groups them in tag mode', async () => {
    await rows().first().getByRole('button', { name: '更多' }).click();
    await page.getByRole('menuitem', { name: '复制' }).click();
    await toastAfter(page, '渠道复制成功', () => page.locator('.ant-modal-confirm .ant-btn-primary').click());
    await expect.poll(() => rows().count()).toBe(2);
    const copy = await gw.ctx.db.db
      .selectFrom('channels')
      .selectAll()
      .where('name', '=', 'mock upstream_复制')
      .executeTakeFirstOrThrow();
    expect(copy.key).toBe('good-key');

    const priority = page.getByRole('spinbutton', { name: '优先级 mock upstream_复制' });
    await priority.fill('5');
    await priority.press('Enter');
    await expect.poll(() => toast(page, '渠道更新成功！').count()).toBeGreaterThan(0);
    await expect
      .poll(async () =>
        Number(
          (
            await gw.ctx.db.db
              .selectFrom('abilities')
              .select('priority')
              .where('channel_id', '=', copy.id)
              .executeTakeFirstOrThrow()
          ).priority,
        ),
      )
      .toBe(5);

    // Batch mode on, and its selection column shown, before ticking (a click during a re-render can be lost).
    const batch = page.getByRole('switch', { name: '批量操作' });
    await batch.click();
    await expect.poll(() => batch.getAttribute('aria-checked')).toBe('true');
    await page.locator('.ant-table-thead .ant-checkbox-input').waitFor();
    await page.locator('.ant-table-thead .ant-checkbox-input').check();
    await page.getByRole('button', { name: '批量设置标签' }).click();
    await page.locator('.ant-modal').getByPlaceholder('请输入标签名称').fill('team');
    await toastAfter(page, '操作成功完成！', () => page.locator('.ant-modal .ant-btn-primary').click());
    await page.getByRole('switch', { name: '批量操作' }).click();
    await page.getByRole('switch', { name: '标签聚合模式' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain('team (2)');
    await shootAll(page, 'channels-tag-mode');
    await page.getByRole('switch', { name: '标签聚合模式' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(opened.errors).toEqual([]);
  });

  test('creates a multi-key channel; a key that fails is disabled alone, and each key is shown and switched', async () => {
    await page.goto(`${gw.url}/channel/add`);
    await settle(page);
    await page.locator('#channel_name').fill('many keys');
    await page.locator('#channel_base_url').fill(upstreamUrl);
    await drawer().getByText('多密钥', { exact: true }).click();
    await page.locator('#channel_key').fill('good-key\nbad-key');
    await drawer().getByRole('button', { name: '清除所有模型' }).click();
    await drawer().getByPlaceholder('输入自定义模型名称，多个用英文逗号分隔').fill('gpt-4o-mini');
    await drawer().getByRole('button', { name: '填入', exact: true }).click();
    await toastAfter(page, '渠道创建成功！', () => page.getByTestId('channel-submit').click());
    const row = await gw.ctx.db.db
      .selectFrom('channels')
      .selectAll()
      .where('name', '=', 'many keys')
      .executeTakeFirstOrThrow();
    expect(row.key).toBe('good-key\nbad-key');

    // Requests through the gateway: the bad key answers 401 once, is disabled, and its request retries on the good one.
    await gw.ctx.options.set('RetryTimes', '1');
    await gw.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const rootUser = await gw.ctx.db.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', ROOT.username)
      .executeTakeFirstOrThrow();
    const token = await seedToken(gw.ctx, { userId: rootUser.id, unlimited: true });
    // Keys are picked at random: send until the bad key's disable is saved (that save follows the answer; 40
    // requests miss the bad key with odds of 2^-40), then three more, which all go to the good key.
    const keyStatus = async () =>
      (
        await gw.ctx.db.db
          .selectFrom('channels')
          .select('key_status')
          .where('id', '=', row.id)
          .executeTakeFirstOrThrow()
      ).key_status;
    for (let sent = 0, after = 0; sent < 40 && after < 3; sent++) {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(200);
      if (after > 0 || (await keyStatus())) after++;
    }
    await expect.poll(keyStatus).toContain('status 401');

    const openKeys = async (p: Page) => {
      await p.goto(`${gw.url}/channel/edit/${row.id}`);
      await settle(p);
      await p.getByTestId('channel-keys').scrollIntoViewIfNeeded();
    };
    await openKeys(page);
    const keys = page.getByTestId('channel-keys');
    await expect.poll(() => keys.getByText('密钥（1/2 个启用）').count()).toBe(1);
    await expect.poll(() => keys.getByText('自动禁用').count()).toBe(1);
    await expect.poll(() => keys.getByText(/status 401/).count()).toBe(1);
    expect(await page.content()).not.toContain('bad-key');
    await shootAll(page, 'channel-keys', openKeys);

    await keys.getByRole('button', { name: '启用' }).click();
    await expect.poll(() => keys.getByText('密钥（2/2 个启用）').count()).toBe(1);
    const after = await gw.ctx.db.db
      .selectFrom('channels')
      .select('key_status')
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    expect(after.key_status).toBeNull();
    expect(opened.errors).toEqual([]);
  });

  test('the add form offers each type its own settings and warns about a deprecated type', async () => {
    const pickType = async (p: Page, label: string) => {
      await p.locator('#channel_type').click();
      await p.keyboard.type(label);
      await p.locator('.ant-select-item-option').filter({ hasText: label }).first().click();
    };
    await page.goto(`${gw.url}/channel/add`);
    await settle(page);
    await pickType(page, 'AWS Claude (33)');
    await expect.poll(() => drawer().getByText('跨区域推理', { exact: true }).count()).toBe(1);
    await page.locator('#channel_name').fill('bedrock');
    await page.locator('#channel_key').fill('AKIAABCDEFGHIJKLMNOP|secret|eu-west-1');
    await page.locator('[id="channel_providerSetting_aws_cross_region"]').click();
    await page.locator('.ant-select-item-option').filter({ hasText: /^eu$/ }).click();
    await toastAfter(page, '渠道创建成功！', () => page.getByTestId('channel-submit').click());
    const row = await gw.ctx.db.db
      .selectFrom('channels')
      .select('setting')
      .where('name', '=', 'bedrock')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.setting)).toEqual({ aws_cross_region: 'eu' });

    const openBedrockForm = async (p: Page) => {
      await p.goto(`${gw.url}/channel/add`);
      await settle(p);
      await pickType(p, 'AWS Claude (33)');
    };
    await openBedrockForm(page);
    await shootAll(page, 'channel-add-bedrock', openBedrockForm);

    await pickType(page, 'Google PaLM2 (11)');
    await expect.poll(() => drawer().getByText('这个渠道类型的上游接口已经停用').count()).toBe(1);
    await expect
      .poll(() =>
        drawer()
          .getByText(/2024-08-15/)
          .count(),
      )
      .toBe(1);
    expect(opened.errors).toEqual([]);
  });

  test('screenshots of the channel list and the add form', async () => {
    await page.goto(`${gw.url}/channel`);
    await settle(page);
    await shootAll(page, 'channels');
    await page.goto(`${gw.url}/channel/add`);
    await settle(page);
    await shootAll(page, 'channel-add');
  });
});
