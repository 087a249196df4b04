import type { AppContext } from '../../context.ts';

/** Contexts shutting down: long channel runs (test all, balances) stop before their next channel. */
const stopping = new WeakSet<AppContext>();

export const markStopping = (ctx: AppContext) => stopping.add(ctx);
export const isStopping = (ctx: AppContext) => stopping.has(ctx);
