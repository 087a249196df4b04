import { describe, expect, it } from 'vitest';
import { claudeDefaultMaxTokens } from '../src/relay/providers/anthropic/index.ts';
import type { UpstreamCall } from '../src/relay/providers/types.ts';

/** A call for `model` under the option `claude.default_max_tokens`. */
function callFor(model: string, setting: Record<string, number> | undefined): UpstreamCall {
  const options = { json: (key: string) => (key === 'claude.default_max_tokens' ? setting : undefined) };
  return { model, options } as unknown as UpstreamCall;
}

describe('the max_tokens an Anthropic request without one gets', () => {
  it('is the default entry, 8192 when unset', () => {
    expect(claudeDefaultMaxTokens(callFor('claude-sonnet-4-5-20250929', { default: 8192 }))).toBe(8192);
    expect(claudeDefaultMaxTokens(callFor('claude-sonnet-4-5-20250929', { default: 32000 }))).toBe(32000);
    expect(claudeDefaultMaxTokens(callFor('claude-3-5-sonnet-20241022', undefined))).toBe(8192);
  });

  it('never more than a Claude 3 model can write (Anthropic refuses 8192 there), on any cloud id', () => {
    for (const model of [
      'claude-3-haiku-20240307',
      'claude-3-opus-20240229',
      'claude-3-sonnet-20240229',
      'claude-3-haiku@20240307',
      'claude-instant-1.2',
    ])
      expect(claudeDefaultMaxTokens(callFor(model, { default: 8192 })), model).toBe(4096);
    expect(claudeDefaultMaxTokens(callFor('claude-3-haiku-20240307', { default: 1000 }))).toBe(1000);
    expect(claudeDefaultMaxTokens(callFor('claude-3-5-haiku-20241022', { default: 8192 }))).toBe(8192);
    expect(claudeDefaultMaxTokens(callFor('claude-3-7-sonnet-20250219', { default: 8192 }))).toBe(8192);
  });

  it("is the model's own entry as set, its -thinking name included", () => {
    const setting = { default: 8192, 'claude-3-haiku-20240307': 6000, 'claude-opus-4-1': 32000 };
    expect(claudeDefaultMaxTokens(callFor('claude-3-haiku-20240307', setting))).toBe(6000);
    expect(claudeDefaultMaxTokens(callFor('claude-opus-4-1-thinking', setting))).toBe(32000);
  });
});
