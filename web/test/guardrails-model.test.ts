import { describe, expect, test } from 'vitest';
import { fromDrafts, policyNames, toDrafts } from '../src/features/guardrails/model.ts';

/** The console's guardrail form values and the option's JSON, both ways. */
describe('guardrail policies in the form', () => {
  const saved = {
    strict: {
      window: 48,
      rules: [
        { id: 'pii', type: 'pii', on: 'both', mode: 'mask', detectors: ['card', 'email'] },
        { id: 'codename', type: 'regex', on: 'prompt', mode: 'block', pattern: 'project\\s+x', flags: 'i' },
        { id: 'words', type: 'words', on: 'answer', mode: 'mask' },
        {
          id: 'violence',
          type: 'moderation',
          channel_id: 7,
          model: 'omni-moderation-latest',
          thresholds: { violence: 0.7 },
        },
      ],
    },
    open: { window: 32, rules: [] },
  };

  test('a saved value survives the form unchanged', () => {
    expect(JSON.parse(fromDrafts(toDrafts(JSON.stringify(saved))))).toEqual(saved);
    expect(policyNames(JSON.stringify(saved))).toEqual(['strict', 'open']);
  });

  test('defaults fill what the JSON leaves out, and a value that does not parse shows no policies', () => {
    const [p] = toDrafts(
      '{"p":{"rules":[{"id":"r","type":"pii"},{"id":"m","type":"moderation","channel_id":2}]}}',
    );
    expect(p.window).toBe(32);
    expect(p.rules[0]).toMatchObject({
      on: 'both',
      mode: 'block',
      detectors: ['email', 'phone', 'card', 'national_id', 'api_key'],
    });
    expect(p.rules[1]).toMatchObject({ on: 'prompt', mode: 'block', thresholds: [] });
    expect(toDrafts('{not json')).toEqual([]);
  });
});
