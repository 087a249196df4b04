import type { Redis } from 'ioredis';

/**
 * Change notifications between the parts of one process and, with Redis, between instances.
 * Topics are coarse ("options", "channels", "user:12", "token:5"): a subscriber reloads what it caches.
 */
export interface Bus {
  /**
   * Tells this process's subscribers at once and other instances through Redis. Resolves when the local
   * subscribers' reloads are done, so a console change awaited this way is in force on this instance when its
   * answer goes out; whoever need not wait leaves it unawaited.
   */
  publish(topic: string, payload?: string): Promise<void>;
  /** `handler` may return its reload's promise, which `publish` waits for; logging its failure is its own job. */
  subscribe(topic: string, handler: Handler): () => void;
  close(): Promise<void>;
}

/** A subscriber to `topic` gets the payload; one to `prefix:*` gets the topic's suffix, then the payload. */
type Handler = (payload: string, extra?: string) => unknown;

const CHANNEL = 'modelgate:changes';

export function createBus(
  redis?: { pub: Redis; sub: Redis },
  nodeId = String(process.pid) + Math.random(),
): Bus {
  const local = new Map<string, Set<Handler>>();
  /**
   * Runs the handlers of `topic` (and of `prefix:*`), as subscribed when the change was published (a handler
   * that subscribes or unsubscribes changes the next change's list); returns what they gave back.
   */
  const emit = (topic: string, payload: string): unknown[] => {
    const results: unknown[] = [];
    for (const h of [...(local.get(topic) ?? [])]) results.push(h(payload));
    const colon = topic.indexOf(':');
    if (colon > 0)
      for (const h of [...(local.get(`${topic.slice(0, colon)}:*`) ?? [])])
        results.push(h(topic.slice(colon + 1), payload));
    return results;
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
      const pending = emit(topic, payload);
      redis?.pub.publish(CHANNEL, JSON.stringify({ from: nodeId, topic, payload })).catch(() => {});
      return Promise.allSettled(pending).then(() => undefined);
    },
    subscribe(topic, handler) {
      const set = local.get(topic) ?? new Set<Handler>();
      local.set(topic, set);
      set.add(handler);
      return () => void set.delete(handler);
    },
    async close() {
      local.clear();
    },
  };
}
