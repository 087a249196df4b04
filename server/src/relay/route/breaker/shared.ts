import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../../context.ts';
import { databaseNamespace } from '../../../infra/namespace.ts';
import type { BreakerEvent, ChannelBreakers } from './breaker.ts';

const TOPIC = 'breaker';
const HASH_TTL_SEC = 86_400;

const isEvent = (v: any): v is BreakerEvent =>
  v &&
  Number.isInteger(v.id) &&
  (v.state === 'open' || v.state === 'closed') &&
  typeof v.until === 'number' &&
  Number.isFinite(v.until);

/**
 * Shares breaker transitions between instances: announced on the change bus (Redis pub/sub when configured)
 * and kept in a Redis hash for instances that start later. Nothing here is on a request's path: the writes
 * are fire-and-forget, made only when a breaker opens or closes.
 */
export function shareBreakers(ctx: AppContext): {
  announce: (e: BreakerEvent) => void;
  follow: (breakers: ChannelBreakers) => void;
} {
  const from = randomBytes(6).toString('hex');
  const ns = databaseNamespace(ctx.config);
  /** Open breakers by channel id, read by an instance that starts while a channel is out of rotation. */
  const hash = `modelgate:breaker:${ns}`;
  const redis = ctx.redis;
  const save = (e: BreakerEvent) => {
    if (!redis) return;
    const write =
      e.state === 'open'
        ? redis.multi().hset(hash, String(e.id), JSON.stringify(e)).expire(hash, HASH_TTL_SEC).exec()
        : redis.hdel(hash, String(e.id));
    write.catch((err) => ctx.log.warn({ err, channel: e.id }, 'could not share the circuit breaker state'));
  };
  return {
    announce(e) {
      ctx.bus.publish(TOPIC, JSON.stringify({ ...e, from, ns }));
      save(e);
    },
    follow(breakers) {
      const off = ctx.bus.subscribe(TOPIC, (payload) => {
        try {
          const msg = JSON.parse(payload);
          if (msg.ns === ns && msg.from !== from && isEvent(msg)) breakers.apply(msg);
        } catch {
          /* not ours */
        }
      });
      ctx.onClose(off);
      redis
        ?.hgetall(hash)
        .then((all) => {
          for (const raw of Object.values(all)) {
            const e = JSON.parse(raw);
            if (isEvent(e)) breakers.apply(e);
          }
        })
        .catch((err) => ctx.log.warn({ err }, 'could not read the shared circuit breaker states'));
    },
  };
}
