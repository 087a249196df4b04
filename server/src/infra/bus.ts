import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';

/**
 * Change notifications between the parts of one process and, with Redis, between instances.
 * Topics are coarse ("options", "channels", "user:12", "token:5"): a subscriber reloads what it caches.
 */
export interface Bus {
  publish(topic: string, payload?: string): void;
  subscribe(topic: string, handler: (payload: string) => void): () => void;
  close(): Promise<void>;
}

const CHANNEL = 'modelgate:changes';

export function createBus(
  redis?: { pub: Redis; sub: Redis },
  nodeId = String(process.pid) + Math.random(),
): Bus {
  const local = new EventEmitter();
  local.setMaxListeners(0);
  const emit = (topic: string, payload: string) => {
    local.emit(topic, payload);
    const colon = topic.indexOf(':');
    if (colon > 0) local.emit(`${topic.slice(0, colon)}:*`, topic.slice(colon + 1), payload);
  };
  if (redis) {
    redis.sub.subscribe(CHANNEL).catch(() => {});
    redis.sub.on('message', (_ch, raw) => {
      try {
        const msg = JSON.parse(raw) as { from: string; topic: string; payload: string };
        if (msg.from !== nodeId) emit(msg.topic, msg.payload);
      } catch {
        /* ignore foreign messages */
      }
    });
  }
  return {
    publish(topic, payload = '') {
      emit(topic, payload);
      redis?.pub.publish(CHANNEL, JSON.stringify({ from: nodeId, topic, payload })).catch(() => {});
    },
    subscribe(topic, handler) {
      local.on(topic, handler);
      return () => local.off(topic, handler);
    },
    async close() {
      local.removeAllListeners();
    },
  };
}
