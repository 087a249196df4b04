import { describe, expect, it } from 'vitest';
import { cloudBetas } from '../src/relay/providers/anthropic/betas.ts';
import { anthropicAdapter } from '../src/relay/providers/anthropic/index.ts';
import type { UpstreamCall } from '../src/relay/providers/types.ts';

/** A call for `model` with the client's headers and the `claude.model_headers_settings` option. */
function callWith(headers: Record<string, string>, perModel: Record<string, unknown> = {}): UpstreamCall {
  const options = { json: (key: string) => (key === 'claude.model_headers_settings' ? perModel : undefined) };
  return { model: 'claude-x', clientHeaders: headers, options } as unknown as UpstreamCall;
}

describe('Anthropic beta flags', () => {
  const claudeCode =
    'claude-code-20250219, interleaved-thinking-2025-05-14,advanced-tool-use-2025-11-20,mcp-servers-2025-12-04';

  it("reach Anthropic's own API as sent, with the model's configured headers, never overriding the key", async () => {
    const call = callWith(
      { 'anthropic-beta': claudeCode, 'anthropic-version': '2023-06-01' },
      {
        'claude-x': {
          'anthropic-beta': ['context-1m-2025-08-07', 'interleaved-thinking-2025-05-14'],
          'X-Custom': 'on',
          'x-api-key': 'not-this',
        },
      },
    );
    const ch = { key: 'sk-ant', baseUrl: '', type: 14 } as never;
    expect(await anthropicAdapter.headers(ch, call, '', undefined)).toEqual({
      'x-api-key': 'sk-ant',
      'anthropic-version': '2023-06-01',
      'x-custom': 'on',
      'anthropic-beta':
        'claude-code-20250219,interleaved-thinking-2025-05-14,advanced-tool-use-2025-11-20,mcp-servers-2025-12-04,context-1m-2025-08-07',
    });
  });

  it('reach a cloud only when it takes them, under its names, configured ones as they are', () => {
    const call = callWith(
      { 'anthropic-beta': claudeCode },
      { 'claude-x': { 'anthropic-beta': 'new-2027-01-01' } },
    );
    expect(cloudBetas('bedrock', call)).toEqual([
      'interleaved-thinking-2025-05-14',
      'tool-search-tool-2025-10-19',
      'new-2027-01-01',
    ]);
    expect(
      cloudBetas('vertex', callWith({ 'anthropic-beta': 'effort-2025-11-24,web-search-2025-03-05' })),
    ).toEqual(['web-search-2025-03-05']);
    expect(cloudBetas('bedrock', callWith({}))).toEqual([]);
  });
});
