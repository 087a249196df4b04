import { describe, expect, it } from 'vitest';
import { DETECTORS, luhnValid } from '../src/relay/guardrails/pii.ts';
import { policiesProblem, readPolicies } from '../src/relay/guardrails/policy.ts';

/** Each PII detector on realistic text, and on the look-alikes it must leave alone. */
const found = (kind: keyof typeof DETECTORS, text: string) =>
  DETECTORS[kind](text).map((s) => text.slice(s.start, s.end));

describe('guardrails: PII detectors', () => {
  it('checks card numbers with Luhn', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('5555555555554444')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
  });

  it('finds card numbers written with spaces, dashes or not at all', () => {
    const text =
      'Charge 4111 1111 1111 1111 today, refund 5555-5555-5555-4444 and keep 378282246310005 (Amex) on file.';
    expect(found('card', text)).toEqual(['4111 1111 1111 1111', '5555-5555-5555-4444', '378282246310005']);
  });

  it('leaves a 16-digit order number that fails Luhn, dates, and short numbers alone', () => {
    const text =
      'Order 1234567812345678 shipped on 2024-05-17; tracking 1Z999AA10123456784, invoice 000123, qty 12 34 56.';
    expect(found('card', text)).toEqual([]);
    expect(found('phone', 'Order 1234567812345678 shipped')).toEqual([]);
  });

  it('finds e-mail addresses but not handles or file names', () => {
    expect(found('email', 'Write to jane.doe+billing@example.co.uk or ops@mail.example.com.')).toEqual([
      'jane.doe+billing@example.co.uk',
      'ops@mail.example.com',
    ]);
    expect(found('email', 'ping @jane about logo@2x.png')).toEqual([]);
  });

  it('finds international, North American and PRC mobile phone numbers', () => {
    const text = 'Call +44 20 7946 0958, (415) 555-0132, 415-555-0199 or 13812345678.';
    expect(found('phone', text)).toEqual([
      '+44 20 7946 0958',
      '(415) 555-0132',
      '415-555-0199',
      '13812345678',
    ]);
    expect(found('phone', 'version 1.2.3, build 20240517, port 8080')).toEqual([]);
  });

  it('finds US social security numbers and PRC resident ids with a valid check character', () => {
    const text = 'SSN 123-45-6789, id 11010519491231002X; not 000-12-3456 nor 110105194912310021.';
    expect(found('national_id', text)).toEqual(['123-45-6789', '11010519491231002X']);
  });

  it('finds API keys of the usual providers, not ordinary words', () => {
    const text = [
      'OPENAI_API_KEY=sk-proj-abcdEFGH1234ijklMNOP5678qrst',
      'aws AKIAIOSFODNN7EXAMPLE',
      `token ghp_${'a1B2'.repeat(9)}`,
      'the task-runner and sk-short stay',
    ].join('\n');
    expect(found('api_key', text)).toEqual([
      'sk-proj-abcdEFGH1234ijklMNOP5678qrst',
      'AKIAIOSFODNN7EXAMPLE',
      `ghp_${'a1B2'.repeat(9)}`,
    ]);
  });
});

describe('guardrails: policy values', () => {
  it('reads a policy with every rule type and fills the defaults', () => {
    const p = readPolicies(
      JSON.stringify({
        strict: {
          window: 48,
          rules: [
            { id: 'words', type: 'words' },
            { id: 'ticket', type: 'regex', pattern: 'TICKET-\\d+', flags: 'i', mode: 'mask' },
            { id: 'pii', type: 'pii', detectors: ['card', 'email'], mode: 'mask', on: 'answer' },
            { id: 'mod', type: 'moderation', channel_id: 3, thresholds: { violence: 0.5 } },
          ],
        },
      }),
    ).get('strict');
    expect(p?.window).toBe(48);
    expect(p?.rules.map((r) => [r.id, r.type, r.on, r.mode])).toEqual([
      ['words', 'words', 'both', 'block'],
      ['ticket', 'regex', 'both', 'mask'],
      ['pii', 'pii', 'answer', 'mask'],
      ['mod', 'moderation', 'prompt', 'block'],
    ]);
  });

  it('refuses bad values with the reason', () => {
    const one = (rule: object, extra = {}) =>
      policiesProblem(JSON.stringify({ p: { rules: [rule], ...extra } }));
    expect(one({ id: 'r', type: 'regex', pattern: '(' })).toMatch(/not a valid regular expression/);
    expect(one({ id: 'r', type: 'pii', detectors: ['passport'] })).toMatch(/passport is not one of/);
    expect(one({ id: 'r', type: 'moderation', channel_id: 3, mode: 'mask' })).toMatch(/can only block/);
    expect(one({ id: 'r', type: 'moderation', thresholds: {} })).toMatch(/channel_id/);
    expect(one({ id: 'r', type: 'words' }, { window: 2 })).toMatch(/window/);
    expect(one({ id: 'r r', type: 'words' })).toMatch(/id must be/);
    expect(policiesProblem('[]')).toMatch(/JSON object/);
    expect(one({ id: 'r', type: 'words' })).toBeUndefined();
  });
});
