import { describe, expect, it } from 'vitest';
import { AnswerGuard } from '../src/relay/guardrails/answer.ts';
import { StreamMasker } from '../src/relay/guardrails/masker.ts';
import { matchersFor } from '../src/relay/guardrails/matchers.ts';
import { readPolicies } from '../src/relay/guardrails/policy.ts';

const policy = (rules: object[], window = 32) =>
  readPolicies(JSON.stringify({ p: { rules, window } })).get('p')!;
const PII_MASK = [{ id: 'pii', type: 'pii', mode: 'mask' }];

/** Feeds `pieces` through a masker as stream chunks; returns what the client got and the largest hold. */
function stream(masker: StreamMasker, pieces: string[]): { out: string; maxHeld: number } {
  let out = '';
  let fed = 0;
  let maxHeld = 0;
  for (const p of pieces) {
    out += masker.push(p);
    fed += p.length;
    maxHeld = Math.max(maxHeld, fed - out.length);
  }
  return { out: out + masker.flush(), maxHeld };
}

describe('guardrails: the streaming masker', () => {
  it('masks a card number split across chunks', () => {
    const m = new StreamMasker(
      matchersFor(policy(PII_MASK), 'answer', () => []),
      32,
    );
    const pieces = ['Your card ', '4111 11', '11 1111 ', '1111', ' is on file. Mail jane@', 'example.com.'];
    expect(stream(m, pieces).out).toBe('Your card [CARD] is on file. Mail [EMAIL].');
  });

  it('holds back no more than the window, and releases a long answer as it goes', () => {
    const m = new StreamMasker(
      matchersFor(policy(PII_MASK, 16), 'answer', () => []),
      16,
    );
    const words = 'The quick brown fox jumps over the lazy dog. '.repeat(20).split(/(?<= )/);
    const { out, maxHeld } = stream(m, words);
    expect(out).toBe(words.join(''));
    expect(maxHeld).toBeLessThanOrEqual(16 + Math.max(...words.map((w) => w.length)));
  });

  it('blocks on a blocking rule and releases nothing after it', () => {
    const words = () => ['forbidden'];
    const m = new StreamMasker(matchersFor(policy([{ id: 'w', type: 'words' }]), 'answer', words), 32);
    expect(m.push('This is for')).toBe('');
    expect(m.push('bidden text and more')).toBe('');
    expect(m.blocked?.rule).toBe('w');
    expect(m.push(' later')).toBe('');
    expect(m.flush()).toBe('');
  });

  it('masks regular expressions and list words in place', () => {
    const rules = [
      { id: 'ticket', type: 'regex', pattern: 'TICKET-\\d+', flags: 'i', mode: 'mask', replacement: '[T]' },
      { id: 'words', type: 'words', mode: 'mask' },
    ];
    const m = new StreamMasker(
      matchersFor(policy(rules), 'answer', () => ['secret']),
      32,
    );
    expect(stream(m, ['see ticket-', '4521 about the Sec', 'ret plan']).out).toBe(
      'see [T] about the ****** plan',
    );
  });

  it('masks each choice of an OpenAI stream on its own and flushes a choice at its finish', () => {
    const g = new AnswerGuard(
      matchersFor(policy(PII_MASK), 'answer', () => []),
      32,
    );
    const chunk = (index: number, content: string, finish: string | null = null) => ({
      choices: [{ index, delta: { content }, finish_reason: finish }],
    });
    const texts = ['', ''];
    for (const c of [
      chunk(0, 'card 4111 1111'),
      chunk(1, 'no card here'),
      chunk(0, ' 1111 1111 ok'),
      chunk(1, '', 'stop'),
      chunk(0, '', 'stop'),
    ])
      for (const out of g.chatChunk(c)) texts[out.choices[0].index] += out.choices[0].delta.content;
    expect(texts).toEqual(['card [CARD] ok', 'no card here']);
  });
});
