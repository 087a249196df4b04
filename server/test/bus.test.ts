import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createBus } from '../src/infra/bus.ts';

/** The in-process side of the change bus: who hears a change, and when `publish` is done. */
describe('change bus', () => {
  it('resolves publish once every local subscriber has finished its reload', async () => {
    const bus = createBus();
    const done: string[] = [];
    bus.subscribe('token:*', async (id) => {
      await sleep(30);
      done.push(`token ${id}`);
    });
    bus.subscribe('token:7', (payload) => {
      done.push(`exact "${payload}"`);
    });
    await bus.publish('token:7');
    expect(done.sort()).toEqual(['exact ""', 'token 7']);
  });

  it('gives prefix subscribers the suffix and the payload, and skips other topics', async () => {
    const bus = createBus();
    const heard: unknown[][] = [];
    bus.subscribe('user:*', (...args) => heard.push(args));
    await bus.publish('user:12', 'p');
    await bus.publish('token:12');
    await bus.publish('channels');
    expect(heard).toEqual([['12', 'p']]);
  });

  it('resolves even when a reload fails, and stops calling a subscriber that left', async () => {
    const bus = createBus();
    let calls = 0;
    const off = bus.subscribe('channels', () => {
      calls++;
      return Promise.reject(new Error('database gone'));
    });
    await expect(bus.publish('channels')).resolves.toBeUndefined();
    off();
    await bus.publish('channels');
    expect(calls).toBe(1);
  });
});
