import { describe, expect, it } from 'vitest';
import { ConversationAffinity } from '../src/relay/route/affinity/store.ts';

describe('conversation affinity store', () => {
  it('forgets a conversation a while after its last turn; each turn starts the while again', () => {
    const store = new ConversationAffinity(1000, 10);
    store.remember('a', { channelId: 1, keyIndex: 2 }, 0);
    expect(store.get('a', 999)).toMatchObject({ channelId: 1, keyIndex: 2 });
    store.remember('a', { channelId: 3 }, 900);
    expect(store.get('a', 1899)).toMatchObject({ channelId: 3 });
    expect(store.get('a', 1900)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('holds at most its bound, dropping the conversation whose last turn is oldest', () => {
    const store = new ConversationAffinity(60_000, 3);
    for (const [i, k] of ['a', 'b', 'c'].entries()) store.remember(k, { channelId: i }, i);
    store.remember('a', { channelId: 9 }, 5);
    store.remember('d', { channelId: 4 }, 6);
    expect(store.size).toBe(3);
    expect(store.get('b', 7)).toBeUndefined();
    expect(store.get('a', 7)?.channelId).toBe(9);
    expect(store.get('c', 7)?.channelId).toBe(2);
    expect(store.get('d', 7)?.channelId).toBe(4);
  });
});
