import { describe, expect, test } from 'vitest';
import { openConsole, settle, shootAll, toast, toastAfter } from '../support/index.ts';

/**
 * Settings, Guardrails: an admin builds a policy (a personal-data rule that masks, a regular expression that
 * blocks, a moderation rule with a threshold), saves it, puts every group under it and exempts one token;
 * the server keeps exactly that, and a bad regular expression is refused with its reason.
 */

const rules = () => page.getByTestId('guardrail-rule');
/** Picks an option of rule `rule`'s select `field`, in that select's own dropdown (others may be closing). */
async function pick(rule: number, field: string, option: string) {
  const id = `guardrailPolicies_policies_0_rules_${rule}_${field}`;
  await page.locator(`.ant-select:has(#${id})`).click();
  const popup = page.locator(`.ant-select-dropdown:has([id="${id}_list"])`);
  await popup.locator(`.ant-select-item-option[title="${option}"]`).click();
  await expect.poll(() => page.locator(`.ant-select:has(#${id})`).innerText()).toBe(option);
}

const opened = await openConsole({ login: { path: '/setting?tab=guardrails' } });
const { gw, page } = opened;

describe('guardrail settings in the console', () => {
  test('an empty tab in both languages', async () => {
    await settle(page);
    await expect.poll(() => page.getByText('还没有策略').count()).toBe(1);
    await shootAll(page, 'guardrails-empty');
  });

  test('a policy with three rules is built and saved as the server reads it', async () => {
    await page.goto(`${gw.url}/setting?tab=guardrails`);
    await settle(page);
    await page.getByRole('button', { name: '添加策略' }).click();
    const policy = page.getByTestId('guardrail-policy');
    await policy.getByLabel('策略名称').fill('strict');

    await policy.getByRole('button', { name: '添加规则' }).click();
    await rules().nth(0).getByLabel('规则 ID').fill('pii');

    await policy.getByRole('button', { name: '添加规则' }).click();
    await rules().nth(1).getByLabel('规则 ID').fill('codename');
    await pick(1, 'type', '正则表达式');
    await pick(1, 'on', '提示词');
    await pick(1, 'mode', '拦截');
    await rules().nth(1).getByLabel('正则表达式').fill('project\\s+(');
    await rules().nth(1).getByText('不区分大小写').click();

    await policy.getByRole('button', { name: '添加规则' }).click();
    await rules().nth(2).getByLabel('规则 ID').fill('violence');
    await pick(2, 'type', '审核接口');
    await rules().nth(2).getByLabel('审核渠道 ID').fill('7');
    await rules().nth(2).getByRole('button', { name: '添加阈值' }).click();
    const category = page.locator('#guardrailPolicies_policies_0_rules_2_thresholds_0_category');
    await category.fill('violence');
    // The category field suggests categories as it is typed; its list, opening late on a busy machine, could take
    // the save click below for itself. Closed first, so the click reaches the button.
    await category.press('Escape');
    await expect.poll(() => page.locator('.ant-select-dropdown:visible').count()).toBe(0);

    await toastAfter(page, 'not a valid regular expression', () =>
      page.getByTestId('save-guardrail-policies').click(),
    );
    expect(gw.ctx.options.get('guardrails.policies')).toBe('{}');
    // The refused save is the one failed request the page may log.
    expect(opened.errors).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
    opened.errors.length = 0;

    await rules().nth(1).getByLabel('正则表达式').fill('project\\s+nightingale');
    await toastAfter(page, '保存成功', () => page.getByTestId('save-guardrail-policies').click());
    expect(JSON.parse(gw.ctx.options.get('guardrails.policies'))).toEqual({
      strict: {
        window: 32,
        rules: [
          { id: 'pii', type: 'pii', on: 'both', mode: 'mask', detectors: ['card', 'email'] },
          {
            id: 'codename',
            type: 'regex',
            on: 'prompt',
            mode: 'block',
            pattern: 'project\\s+nightingale',
            flags: 'i',
          },
          { id: 'violence', type: 'moderation', channel_id: 7, thresholds: { violence: 0.7 } },
        ],
      },
    });
  });

  test('every group is put under the policy and one token is exempt', async () => {
    await page.getByRole('button', { name: '添加分组' }).click();
    await page.locator('#guardrailAssign_groups_0_name').fill('*');
    await page.getByRole('button', { name: '添加令牌' }).click();
    await page.locator('#guardrailAssign_tokens_0_id').fill('12');
    await page.getByTestId('save-guardrail-assignments').click();
    // Waits for the options themselves: the policy save's "saved" toast may still be up.
    await expect
      .poll(() => JSON.parse(gw.ctx.options.get('guardrails.token_policies')))
      .toEqual({ '12': '' });
    await expect
      .poll(() => JSON.parse(gw.ctx.options.get('guardrails.group_policies')))
      .toEqual({ '*': 'strict' });
    await expect.poll(() => toast(page, '保存成功').count()).toBeGreaterThan(0);
  });

  test('screenshots of the saved policy', async () => {
    await shootAll(page, 'guardrails-policy');
    expect(opened.errors).toEqual([]);
  });
});
