import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { startBudgetRenewals } from '../../ledger/budget/reset-job.ts';
import { relayState } from '../../relay/relay-state.ts';

/**
 * Budgets are edited with their token (/api/token) or user (/api/user); this feature only starts the master's
 * renewal job, on the relay ledger's clock.
 */
export default function budgetsFeature(_app: FastifyInstance, ctx: AppContext) {
  const { ledger } = relayState(ctx);
  startBudgetRenewals(ctx, () => ledger.now());
}
