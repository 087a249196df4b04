import { afterAll, describe, expect, test } from 'vitest';
import { relayState } from '../../server/src/relay/relay-state.ts';
import { sunoTasks } from '../../server/src/relay/tasks/suno/refresh.ts';
import { PNG } from '../../server/test/support/mock-midjourney.ts';
import { AUDIOPIPE, CDN, type SunoApi, startSunoApi, WAV } from '../../server/test/support/mock-suno.ts';
import { loginViaApi, openConsole, ROOT, shootAll } from '../support/index.ts';
import * as taskLog from '../support/task-log.ts';

/** The task log (/task) with real Suno tasks relayed through a Suno-API stand-in. */

const SECRET = 'e2e-suno-secret';

let suno: SunoApi;
const ids: Record<string, string> = {};

const rows = () => taskLog.rows(page);

const submit = async (apiKey: string, action: 'music' | 'lyrics', body: object) =>
  (await taskLog.submit<{ data: string }>(gw, apiKey, `/suno/submit/${action}`, body)).data;

suno = await startSunoApi(SECRET);
const opened = await openConsole({ env: { TASK_POLL_INTERVAL: '0' } });
const { gw, page } = opened;
const { channelId, rootKey, aliceKey } = await taskLog.seedAccounts(gw, {
  type: 36,
  baseUrl: suno.url,
  key: SECRET,
  models: ['suno_music', 'suno_lyrics'],
});

ids.done = await submit(rootKey, 'music', {
  prompt: '[Verse]\nThe lamp turns slow above the bay',
  title: 'Keeper of the Light',
  tags: 'folk, sea shanty, male vocals',
});
ids.running = await submit(rootKey, 'music', { gpt_description_prompt: 'a lo-fi beat for a rainy street' });
ids.failed = await submit(rootKey, 'music', { prompt: 'in the style of a famous singer', tags: 'pop' });
ids.lyrics = await submit(rootKey, 'lyrics', { prompt: 'a harbour at night' });
ids.alice = await submit(aliceKey, 'music', { prompt: 'alice sings to her fox', title: 'Fox Song' });
suno.advance(ids.done, 'complete');
suno.advance(ids.running, 'streaming');
suno.advance(ids.failed, 'error', 'Song description contains an artist name');
suno.advance(ids.alice, 'complete');
await sunoTasks.poll(relayState(gw.ctx));

// Suno's CDN and audio stream, as the browser reaches them for the players and covers.
for (const host of [CDN, AUDIOPIPE])
  await opened.context.route(`${host}/**`, (route) =>
    route.request().url().endsWith('.png')
      ? route.fulfill({ status: 200, contentType: 'image/png', body: PNG })
      : route.fulfill({ status: 200, contentType: 'audio/wav', body: WAV }),
  );
await loginViaApi(page, gw.url, ROOT, '/task');

afterAll(async () => {
  await suno?.close();
});

describe('task log', () => {
  test('an admin sees every task with its channel, status, progress and fail reason', async () => {
    await taskLog.expectAdminSeesAll(page, ids, channelId);
    const failedRow = rows().filter({ hasText: ids.failed });
    expect(await failedRow.innerText()).toContain('Song description contains an artist name');
    const running = rows().filter({ hasText: ids.running });
    expect(await running.innerText()).toContain('执行中');
    expect(await running.innerText()).toContain('50%');
    expect(await rows().filter({ hasText: ids.done }).innerText()).toContain('成功');
    expect(await rows().filter({ hasText: ids.lyrics }).innerText()).toContain('生成歌词');
    expect(opened.errors).toEqual([]);
  });

  test('plays the songs of a finished task and shows written lyrics', async () => {
    await rows().filter({ hasText: ids.done }).getByText('试听（2 首）').click();
    const modal = page.getByRole('dialog');
    await expect.poll(() => modal.locator('audio').count()).toBe(2);
    expect(await modal.innerText()).toContain('Keeper of the Light');
    expect(await modal.innerText()).toContain('folk, sea shanty, male vocals');
    // The players load the stand-in's audio: one second of sound each.
    const audio = modal.locator('audio').first();
    await expect
      .poll(() => audio.evaluate((el) => Math.round((el as HTMLAudioElement).duration)), { timeout: 10_000 })
      .toBe(1);
    expect(await modal.getByText('打开音频').first().getAttribute('href')).toMatch(
      /^https:\/\/cdn1\.suno\.ai\/.+\.mp3$/,
    );
    await expect
      .poll(() =>
        modal
          .locator('img')
          .first()
          .evaluate((el) => (el as HTMLImageElement).naturalWidth),
      )
      .toBe(96);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.ant-modal audio').count()).toBe(0);

    await rows().filter({ hasText: ids.lyrics }).getByText('查看歌词').click();
    await expect
      .poll(() => page.locator('.ant-modal .task-lyrics').innerText())
      .toContain('a harbour at night');
    expect(await page.locator('.ant-modal-title').innerText()).toBe('Harbour Lights');
    await page.keyboard.press('Escape');
    // A song being generated streams already; a failed one has nothing to play.
    expect(await rows().filter({ hasText: ids.running }).getByText('试听（2 首）').count()).toBe(1);
    expect(await rows().filter({ hasText: ids.failed }).getByText(/试听/).count()).toBe(0);
  });

  test('shows the whole record as JSON from the task id', async () => {
    await rows().filter({ hasText: ids.failed }).getByText(ids.failed).click();
    const pre = page.locator('.ant-modal pre');
    await expect.poll(() => pre.innerText()).toContain('"status": "FAILURE"');
    expect(await pre.innerText()).toContain('"error_message": "Song description contains an artist name"');
    await page.keyboard.press('Escape');
  });

  test('filters by task id', async () => {
    await taskLog.searchTaskId(page, ids.running);
    await shootAll(page, 'tasks-admin', async (p) => {
      await expect.poll(() => p.locator('.ant-table-tbody tr.ant-table-row').count()).toBe(5);
    });
    await shootAll(page, 'tasks-songs', async (p) => {
      await p
        .locator('.ant-table-tbody tr.ant-table-row')
        .filter({ hasText: ids.done })
        .locator('a')
        .filter({ has: p.locator('.anticon-sound') })
        .click();
      await expect.poll(() => p.locator('.ant-modal audio').count()).toBe(2);
    });
  });

  test('a user sees only their own tasks, without the channel', async () => {
    await taskLog.expectAliceSeesOwnTask(page, gw, '/task', ids.alice);
    expect(await rows().first().innerText()).toContain('成功');
    await shootAll(page, 'tasks-user');
  });
});
