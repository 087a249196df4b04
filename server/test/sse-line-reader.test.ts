import { describe, expect, it } from 'vitest';
import { SseLineReader } from '../src/relay/stream/sse.ts';

describe('SseLineReader', () => {
  it('decodes characters whose UTF-8 bytes arrive in different chunks, and lines split anywhere', () => {
    const bytes = Buffer.from('data: {"t":"你好 👋"}\r\n\ndata: [DONE]\n\n');
    // Every split point: the payloads are the same wherever the chunks break.
    for (let cut = 1; cut < bytes.length; cut++) {
      for (let cut2 = cut; cut2 < bytes.length; cut2 += 7) {
        const reader = new SseLineReader();
        const got = [
          ...reader.push(bytes.subarray(0, cut)),
          ...reader.push(bytes.subarray(cut, cut2)),
          ...reader.push(bytes.subarray(cut2)),
          ...reader.end(),
        ];
        expect(got).toEqual(['{"t":"你好 👋"}', '[DONE]']);
      }
    }
  });

  it('gives a last line left without its newline at the end', () => {
    const reader = new SseLineReader();
    expect(reader.push(Buffer.from('data: {"a":1}\n\ndata: {"b":"'))).toEqual(['{"a":1}']);
    expect(reader.push(Buffer.from([0xe2, 0x82]))).toEqual([]);
    expect(reader.push(Buffer.from([0xac, 0x22, 0x7d]))).toEqual([]);
    expect(reader.end()).toEqual(['{"b":"€"}']);
  });
});
