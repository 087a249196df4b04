import { afterAll, describe, expect, test } from 'vitest';
import { type MockUpstream, startMockUpstream } from '../../server/test/support/mock-upstream.ts';
import { seedChannel } from '../../server/test/support/relay-seed.ts';
import {
  loggedRows,
  loginViaApi,
  openConsole,
  ROOT,
  settle,
  shootAll,
  toastAfter,
} from '../support/index.ts';

/**
 * Model fallbacks from the console: the admin gives a model a fallback in the models tab, a request for the
 * model (whose only channel fails) is answered by the fallback, and the usage log marks the row.
 */

const mock: MockUpstream = await startMockUpstream();
const opened = await openConsole();
const { gw, page } = opened;
await seedChannel(gw.ctx, { baseUrl: mock.url, key: 'sk-upstream-good', models: ['gpt-4o-mini'] });
await seedChannel(gw.ctx, {
  baseUrl: mock.url,
  key: 'sk-fail500',
  models: ['e2e-broken'],
  modelMapping: { 'e2e-broken': 'gpt-4o' },
  autoBan: false,
});
await gw.ctx.options.set('ModelRatio', JSON.stringify({ 'e2e-broken': 1 }));

await loginViaApi(page, gw.url, ROOT, '/setting?tab=models');

afterAll(async () => {
  await mock?.close();
});

describe('model fallbacks in the console', () => {
  test('the admin gives a model a fallback; a failing request is answered by it and the log says so', async () => {
    await settle(page);
    const models = page.locator('[id="model_fallbacks.models"]');
    await models.fill('{"e2e-broken": ["gpt-4o-mini"');
    await models.blur();
    await expect.poll(() => page.getByText('不是合法的 JSON 字符串').count()).toBeGreaterThan(0);
    await models.fill('{"e2e-broken": ["gpt-4o-mini"]}');
    await models.blur();
    await toastAfter(page, '保存成功', () =>
      page.getByTestId('save-settings.section.modelFallbacks').click(),
    );
    await expect
      .poll(() => gw.ctx.options.json('model_fallbacks.models'))
      .toEqual({ 'e2e-broken': ['gpt-4o-mini'] });
    await shootAll(page, 'model-fallbacks-settings');

    const token = await fetch(`${gw.url}/api/token/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: (await opened.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; '),
        'new-api-user': '1',
      },
      body: JSON.stringify({ name: 'fb', unlimited_quota: true }),
    }).then((r) => r.json() as Promise<{ data: Array<{ key: string }> }>);
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.data[0].key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'e2e-broken', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-model')).toBe('gpt-4o-mini');

    // The answer reaches the client before its usage row is written: the log page is opened once it is there.
    await expect.poll(() => loggedRows(gw, 'fallback_from')).toBeGreaterThan(0);
    await page.goto(`${gw.url}/log`);
    await settle(page);
    await expect.poll(() => page.getByText('备用模型', { exact: true }).count()).toBeGreaterThan(0);
    await shootAll(page, 'model-fallbacks-log');
    expect(opened.errors).toEqual([]);
  });
});
