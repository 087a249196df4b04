import { describe, expect, it } from 'vitest';
import { fuzzyMatch, promptPerMillion, usd } from '../src/features/pricing/price.ts';
import { changedOptions, type FieldDef } from '../src/features/settings/fields.ts';
import {
  changedPriceOptions,
  completionFromPrices,
  inputPriceToRatio,
  optionsFromRows,
  ratioToInputPrice,
  rowsFromOptions,
} from '../src/features/settings/pricing/priceMath.ts';
import { checkRateLimitGroups } from '../src/features/settings/validators.ts';

describe('settings save: only what changed, one key each', () => {
  const fields: FieldDef[] = [
    { key: 'LogConsumeEnabled', kind: 'switch' },
    { key: 'RetryTimes', kind: 'number' },
    { key: 'GroupRatio', kind: 'json' },
    { key: 'SMTPToken', kind: 'secret' },
    { key: 'EmailDomainWhitelist', kind: 'tags' },
  ];
  const saved = {
    LogConsumeEnabled: 'true',
    RetryTimes: '2',
    GroupRatio: '{"default":1}',
    EmailDomainWhitelist: 'a.com,b.com',
  };

  it('sends nothing when the values are the saved ones (JSON compared by meaning, blank secret skipped)', () => {
    expect(
      changedOptions(
        fields,
        {
          LogConsumeEnabled: true,
          RetryTimes: 2,
          GroupRatio: '{\n  "default": 1\n}',
          SMTPToken: '',
          EmailDomainWhitelist: ['a.com', 'b.com'],
        },
        saved,
      ),
    ).toEqual([]);
  });

  it('sends each changed key as a string', () => {
    expect(
      changedOptions(
        fields,
        {
          LogConsumeEnabled: false,
          RetryTimes: 3,
          GroupRatio: '{"default": 1, "vip": 0.5}',
          SMTPToken: 's3cret',
          EmailDomainWhitelist: ['a.com'],
        },
        saved,
      ),
    ).toEqual([
      ['LogConsumeEnabled', 'false'],
      ['RetryTimes', '3'],
      ['GroupRatio', '{"default":1,"vip":0.5}'],
      ['SMTPToken', 's3cret'],
      ['EmailDomainWhitelist', 'a.com'],
    ]);
  });
});

describe('price editor conversions (spec 001 §4)', () => {
  it('converts between ratios and US$ per 1M tokens', () => {
    expect(ratioToInputPrice(1.25)).toBe(2.5);
    expect(inputPriceToRatio(0.15)).toBe(0.075);
    expect(completionFromPrices(2.5, 10)).toBe(4);
  });

  it('keeps a fixed price apart from ratios and finds what changed', () => {
    const saved = {
      ModelPrice: '{"dall-e-3":0.04}',
      ModelRatio: '{"gpt-4o":1.25,"dall-e-3":5}',
      CompletionRatio: '{"gpt-4o":4}',
    };
    const rows = rowsFromOptions(saved);
    expect(rows).toEqual([
      { name: 'dall-e-3', price: 0.04, ratio: 5, completionRatio: undefined, cacheRatio: undefined },
      { name: 'gpt-4o', price: undefined, ratio: 1.25, completionRatio: 4, cacheRatio: undefined },
    ]);
    // The fixed price wins: the stray ratio of dall-e-3 is dropped.
    expect(optionsFromRows(rows).ModelRatio).toBe('{"gpt-4o":1.25}');
    expect(
      changedPriceOptions([...rows, { name: 'new-model', ratio: 3, completionRatio: 2 }], saved),
    ).toEqual([
      ['ModelRatio', '{"gpt-4o":1.25,"new-model":3}'],
      ['CompletionRatio', '{"gpt-4o":4,"new-model":2}'],
    ]);
  });
});

describe('pricing page', () => {
  it('prices per 1M tokens with the group ratio and matches names fuzzily', () => {
    const row = {
      model_name: 'gpt-4o',
      quota_type: 0 as const,
      model_ratio: 1.25,
      completion_ratio: 4,
      model_price: 0,
      enable_groups: [],
    };
    expect(usd(promptPerMillion(row, 0.5))).toBe('$1.25');
    expect(fuzzyMatch('gpt-4o-mini', '4omini')).toBe(true);
    expect(fuzzyMatch('gpt-4o', 'mini')).toBe(false);
  });

  it('checks per-group rate limits', () => {
    expect(checkRateLimitGroups('{"vip": [0, 1]}')).toBeUndefined();
    expect(checkRateLimitGroups('{"vip": [5, 0]}')).toBe('settings.error.rateLimitGroup');
    expect(checkRateLimitGroups('{"vip": 3}')).toBe('settings.error.rateLimitGroup');
  });
});
