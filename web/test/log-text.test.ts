import { describe, expect, it } from 'vitest';
import { explainBilling } from '../src/features/logs/billing.ts';
import { logText } from '../src/features/logs/logText.ts';
import i18n from '../src/i18n/index.ts';

const usd = (q: number) => `$${q / 500_000}`;
const t = (lng: string) => i18n.getFixedT(lng);

describe('log Details text', () => {
  const consume = {
    content_code: 'consume',
    model_ratio: 0.075,
    completion_ratio: 4,
    group_ratio: 1,
    model_price: -1,
  };
  const row = { type: 2, content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00', quota: 8 };

  it('is written in the reader language from the codes, with the ratio as configured', () => {
    expect(logText(row, consume, t('en'), usd)).toBe('Model ratio 0.075, completion ratio 4, group ratio 1');
    expect(logText(row, consume, t('zh'), usd)).toBe('模型倍率 0.075，补全倍率 4，分组倍率 1');
  });

  it('falls back to the stored text for rows written before the codes', () => {
    const { content_code: _c, ...old } = consume;
    expect(logText(row, old, t('en'), usd)).toBe(row.content);
  });

  it('words top-ups, redemptions and refunds', () => {
    const redeem = { type: 1, content: '通过兑换码充值 $1.000000，兑换码ID 3', quota: 500_000 };
    expect(logText(redeem, { redemption_id: 3 }, t('en'), usd)).toBe('Redeemed $1 with code #3');
    const refund = { type: 2, content: '任务 t1 失败，退还 50000（timeout）', quota: -50_000 };
    expect(logText(refund, { task_id: 't1', refund: true, reason: 'timeout' }, t('en'), usd)).toBe(
      'Task t1 failed: $0.1 refunded (timeout)',
    );
  });
});

describe('a response cache hit', () => {
  const o = {
    content_code: 'response_cache_hit',
    response_cache_hit: true,
    response_cache_ratio: 0.5,
    saved_prompt_tokens: 16,
    saved_completion_tokens: 363,
    saved_quota: 55,
  };
  const row = {
    type: 2,
    content: '响应缓存命中，节省 379 tokens',
    quota: 55,
    prompt_tokens: 0,
    completion_tokens: 0,
  };

  it('says what it saved, in both languages', () => {
    expect(logText(row, o, t('en'), usd)).toBe(
      'Response cache hit: saved 16 prompt and 363 completion tokens, charged 0.5 x the full price, $0.00011 saved',
    );
    expect(logText(row, o, t('zh'), usd)).toBe(
      '响应缓存命中：节省输入 16 tokens、输出 363 tokens，按原价的 0.5 倍计费，节省 $0.00011',
    );
  });

  it('explains its charge as the full price times the hit ratio', () => {
    const lines = explainBilling(o, row, 500_000);
    expect(lines).toEqual([
      {
        key: 'responseCacheHit',
        values: { full: 110, ratio: '0.5', quota: 55, dollars: expect.any(String) },
      },
    ]);
    expect(t('en')(`log.billing.${lines[0].key}`, lines[0].values)).toMatch(
      /^Cache hit: full price 110 quota × hit ratio 0.5 = 55 quota/,
    );
  });
});

describe('billing explanation', () => {
  const o = { model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, model_price: -1 };

  it('shows the exact figure, then the quota it was rounded to', () => {
    // (10 + 25 x 4) x 0.075 = 8.25 quota = $0.0000165, charged 8 quota.
    const lines = explainBilling(o, { prompt_tokens: 10, completion_tokens: 25, quota: 8 }, 500_000);
    expect(lines.find((l) => l.key === 'process')?.values?.total).toBe('$0.0000165');
    expect(lines.at(-1)).toEqual({
      key: 'rounded',
      values: { exact: '8.25', quota: 8, dollars: '$0.000016' },
    });
  });

  it('counts web searches in the figure: calls x price per 1K x QuotaPerUnit x group ratio', () => {
    // Tokens: 8.25 quota as above; 2 searches at $10 / 1K = $0.02 = 10,000 quota; charged 10,008.
    const searched = { ...o, web_search: true, web_search_call_count: 2, web_search_price: 10 };
    const lines = explainBilling(
      searched,
      { prompt_tokens: 10, completion_tokens: 25, quota: 10_008 },
      500_000,
    );
    expect(lines.find((l) => l.key === 'webSearch')?.values).toEqual({ calls: 2, price: '$10' });
    expect(lines.at(-1)).toEqual({
      key: 'rounded',
      values: { exact: '10008.25', quota: 10_008, dollars: expect.any(String) },
    });
  });

  it('shows a refund as a refund', () => {
    const lines = explainBilling(
      { refund: true, task_id: 't1' },
      { prompt_tokens: 0, completion_tokens: 0, quota: -50_000 },
      500_000,
    );
    expect(lines).toEqual([{ key: 'refund', values: { quota: 50_000, dollars: '$0.10', task: 't1' } }]);
  });
});
