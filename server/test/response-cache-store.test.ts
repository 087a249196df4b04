import { describe, expect, it } from 'vitest';
import { type CacheEntry, entryBytes } from '../src/relay/response-cache/entry.ts';
import { MemoryCacheStore } from '../src/relay/response-cache/memory-store.ts';
import { answerCacheable, answerValues } from '../src/relay/response-cache/policy.ts';

const entry = (body: string): CacheEntry => ({
  contentType: 'application/json',
  body,
  usage: { promptTokens: 3, completionTokens: 5, cachedTokens: 0 },
  storedAt: 0,
});

describe('memory response cache store', () => {
  it('forgets an entry once its TTL has passed, on a clock the test moves', async () => {
    let now = 1_000;
    const store = new MemoryCacheStore(() => now);
    await store.set('a', entry('{}'), 500, 1 << 20);
    now += 499;
    expect(await store.get('a')).toBeDefined();
    now += 1;
    expect(await store.get('a')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps the total under the cap by dropping the least recently used entries', async () => {
    const store = new MemoryCacheStore(() => 0);
    const one = entryBytes('a', entry('x'.repeat(100)));
    const cap = one * 3;
    for (const k of ['a', 'b', 'c']) await store.set(k, entry('x'.repeat(100)), 1000, cap);
    await store.get('a'); // a is now the most recently used
    await store.set('d', entry('x'.repeat(100)), 1000, cap);
    expect(await store.get('b')).toBeUndefined();
    for (const k of ['a', 'c', 'd']) expect(await store.get(k)).toBeDefined();
    expect(store.size).toBe(cap);
    // An entry larger than the whole cap is not kept, and evicts nothing.
    await store.set('big', entry('x'.repeat(cap)), 1000, cap);
    expect(await store.get('big')).toBeUndefined();
    expect(store.size).toBe(cap);
  });
});

describe('what the response cache keeps', () => {
  const ok = (body: string, stream = false) => answerCacheable(answerValues(body, stream) ?? [{ error: {} }]);

  it('keeps plain answers of every format', () => {
    expect(
      ok(
        '{"choices":[{"message":{"role":"assistant","content":"hi","refusal":null},"finish_reason":"stop"}]}',
      ),
    ).toBe(true);
    expect(ok('{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}')).toBe(
      true,
    );
    expect(ok('{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}')).toBe(true);
    expect(
      ok(
        '{"object":"response","error":null,"output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}],"tools":[{"type":"function","name":"f"}]}',
      ),
    ).toBe(true);
    expect(ok('data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n', true)).toBe(true);
  });

  it('refuses tool calls, refusals, blocked prompts, errors and unreadable bodies', () => {
    expect(ok('{"choices":[{"message":{"tool_calls":[{"id":"1"}]},"finish_reason":"tool_calls"}]}')).toBe(
      false,
    );
    expect(ok('{"choices":[{"message":{"content":null,"refusal":"I cannot"},"finish_reason":"stop"}]}')).toBe(
      false,
    );
    expect(ok('{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}')).toBe(false);
    expect(ok('{"content":[{"type":"tool_use","id":"t"}],"stop_reason":"tool_use"}')).toBe(false);
    expect(ok('{"content":[{"type":"text","text":""}],"stop_reason":"refusal"}')).toBe(false);
    expect(
      ok('{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"}}]},"finishReason":"STOP"}]}'),
    ).toBe(false);
    expect(ok('{"candidates":[{"finishReason":"SAFETY"}]}')).toBe(false);
    expect(ok('{"promptFeedback":{"blockReason":"OTHER"}}')).toBe(false);
    expect(ok('{"output":[{"type":"function_call","name":"f"}]}')).toBe(false);
    expect(ok('event: error\ndata: {"type":"error","error":{"type":"overloaded_error"}}\n\n', true)).toBe(
      false,
    );
    expect(ok('data: {"type":"response.output_item.added","item":{"type":"function_call"}}\n\n', true)).toBe(
      false,
    );
    expect(ok('{"truncated', false)).toBe(false);
  });
});
