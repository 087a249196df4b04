import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';

const CHECK_TIMEOUT_MS = 2000;

export interface Readiness {
  ready: boolean;
  body: { status: 'ready' | 'unavailable'; reason?: string; checks: Record<string, string> };
}

const SHUTTING_DOWN: Readiness = {
  ready: false,
  body: { status: 'unavailable', reason: 'shutting down', checks: {} },
};

/** 'ok', or why not: the error itself goes to the log only (it may name hosts and databases). */
async function within(check: () => Promise<unknown>, onError: (err: unknown) => void): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      check().then(
        () => 'ok',
        (err) => {
          onError(err);
          return 'unreachable';
        },
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this instance can serve: the database (and the log database when separate, and Redis when
 * configured) answer, and the relay's caches have loaded. Probes arriving together share one round of
 * checks; a change of state is logged with the errors behind it. After `stop` (shutdown) it is never ready.
 */
export function createReadiness(ctx: AppContext, pendingCaches: () => string[]) {
  let stopping = false;
  let running: Promise<Readiness> | null = null;
  let wasReady: boolean | null = null;

  async function evaluate(): Promise<Readiness> {
    const checks: Record<string, string> = {};
    const errors: Record<string, string> = {};
    const probe = async (name: string, fn: () => Promise<unknown>) => {
      checks[name] = await within(fn, (err) => {
        errors[name] = err instanceof Error ? err.message : String(err);
      });
    };
    const { redis } = ctx;
    await Promise.all([
      probe('database', () => sql`select 1`.execute(ctx.db.db)),
      ctx.logDb !== ctx.db ? probe('log_database', () => sql`select 1`.execute(ctx.logDb.db)) : null,
      redis
        ? probe('redis', async () => {
            // A client that is reconnecting would queue the ping; its state says enough.
            if (redis.status !== 'ready') throw new Error(`the Redis client is ${redis.status}`);
            await redis.ping();
          })
        : null,
    ]);
    const pending = pendingCaches();
    checks.caches = pending.length ? `not loaded yet: ${pending.join(', ')}` : 'ok';
    const failed = Object.entries(checks).find(([, v]) => v !== 'ok');
    const ready = !failed && !stopping;
    if (wasReady !== ready && (wasReady !== null || !ready)) {
      if (ready) ctx.log.info('ready again');
      else ctx.log.warn({ checks, errors }, 'not ready');
    }
    wasReady = ready;
    if (stopping) return SHUTTING_DOWN;
    return failed
      ? { ready, body: { status: 'unavailable', reason: `${failed[0]}: ${failed[1]}`, checks } }
      : { ready, body: { status: 'ready', checks } };
  }

  return {
    /** From now on (shutdown) the answer is 503 "shutting down". */
    stop(): void {
      stopping = true;
    },
    check(): Promise<Readiness> {
      if (stopping) return Promise.resolve(SHUTTING_DOWN);
      running ??= evaluate().finally(() => {
        running = null;
      });
      return running;
    },
  };
}

export type ReadinessCheck = ReturnType<typeof createReadiness>;
