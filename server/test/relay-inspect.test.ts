import { describe, expect, it } from 'vitest';
import { inspectJson } from '../src/relay/admit/inspect-request.ts';

/**
 * The hold's prompt estimate: UTF-8 bytes of the prompt text / 3, 255 tokens an image, plus 3 per message and 3
 * for the reply; its bound: one token per byte, 2,500 an image, the same framing.
 */
describe('relay: chat prompt estimate', () => {
  const estimateOf = (body: object) => inspectJson('chat', { model: 'm', ...body }).promptEstimate;
  const boundOf = (body: object) => inspectJson('chat', { model: 'm', ...body }).promptBound;

  it('counts every text part, in UTF-8, with one byte between joined parts, and every image', () => {
    const messages = [
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: '你好，世界' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          { type: 'text', text: 'and more' },
        ],
      },
    ];
    // The text the estimate stands for: parts joined with newlines, as the tokenizer fallback would see it.
    const joined = ['You are terse.', ['你好，世界', '', 'and more'].join('\n')].join('\n');
    expect(estimateOf({ messages })).toBe(Math.ceil(Buffer.byteLength(joined) / 3) + 255 + 3 * 2 + 3);
    expect(boundOf({ messages })).toBe(Buffer.byteLength(joined) + 2_500 + 3 * 2 + 3);
  });

  it('adds the tool definitions as JSON', () => {
    const messages = [{ role: 'user', content: 'weather?' }];
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const bytes = Buffer.byteLength('weather?') + Buffer.byteLength(JSON.stringify(tools));
    expect(estimateOf({ messages, tools })).toBe(Math.ceil(bytes / 3) + 3 + 3);
  });
});
