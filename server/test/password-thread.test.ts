import { hashSync } from '@node-rs/bcrypt';
import { afterAll, describe, expect, it } from 'vitest';
import { hashThread } from '../src/modules/auth/hash-worker/thread.ts';
import { hashPassword, verifyPassword } from '../src/modules/auth/password.ts';
import { threadNiceValues } from './support/thread-nice.ts';

describe('password hashing on its own thread', () => {
  afterAll(() => hashThread.stop());

  it('hashes and verifies as bcrypt does, old $2a$/$2y$ hashes included, and refuses a malformed hash', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$2b\$10\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('wrong horse', hash)).toBe(false);
    for (const version of ['2a', '2y'] as const)
      expect(await verifyPassword('old one', hashSync('old one', { cost: 4, version }))).toBe(true);
    expect(await verifyPassword('anything', 'not-a-bcrypt-hash')).toBe(false);
    // No stored hash (no such user): the same work against a dummy hash, and never a match.
    expect(await verifyPassword('not-a-real-password', undefined)).toBe(false);
  });

  it('answers many logins at once, each with its own result', async () => {
    const hash = await hashPassword('p');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => verifyPassword(i % 3 === 0 ? 'p' : `x${i}`, hash)),
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 === 0));
  });

  it.runIf(process.platform === 'linux')(
    'runs at a lower priority than the event loop, so a burst of logins yields the core to requests',
    async () => {
      await hashThread.stop();
      const before = threadNiceValues();
      expect(await verifyPassword('a', await hashPassword('a'))).toBe(true);
      const started = [...threadNiceValues()].filter(([tid]) => !before.has(tid));
      expect(started.filter(([, nice]) => nice === 10)).toHaveLength(1);
      expect(threadNiceValues().get(process.pid)).toBe(before.get(process.pid));
    },
  );

  it('starts a new thread for the next job after the last one ended', async () => {
    await hashThread.stop();
    expect(await verifyPassword('b', await hashPassword('b'))).toBe(true);
  });
});
