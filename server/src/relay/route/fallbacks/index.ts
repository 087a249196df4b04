import type { Caller } from '../../admit/auth.ts';
import type { RelayInput } from '../../admit/relay-input.ts';
import type { RelayReply, RelayRequest } from '../../http/exchange.ts';
import { RelayError } from '../../relay-error.ts';
import type { RelayState } from '../../relay-state.ts';
import { shouldRetry } from '../failover.ts';
import { fallbackChain, inputFor, takeClientModels } from './chain.ts';

/** The response header naming the model that answered, when a fallback model did. */
export const MODEL_HEADER = 'x-modelgate-model';

/**
 * Whether a failed request may go to the next model: its model's channels all failed in a way another channel
 * might not (an upstream's retryable failure), or it has no channel left. Never the caller's own mistakes or
 * refusals (bad input, quota, rate limits), nor once anything reached the client.
 */
function fallsBack(err: unknown, reply: RelayReply): boolean {
  if (!(err instanceof RelayError) || reply.raw.headersSent) return false;
  if (err.code === 'no_available_channel' || (err.status === 503 && err.code === 'model_not_found'))
    return true;
  return !err.local && shouldRetry(err);
}

/**
 * Runs a request, and when every channel of its model fails, runs it again for each fallback model in turn
 * (relay/route/fallbacks/): each run is a whole request for that model (its checks, price, hold and log row), so
 * the answer is billed at the price of the model that gave it. The reply says that model in X-ModelGate-Model
 * and its log row says which model was asked for.
 */
export async function withFallbacks(
  state: RelayState,
  req: RelayRequest,
  reply: RelayReply,
  caller: Caller,
  input: RelayInput,
  run: (input: RelayInput) => Promise<void>,
): Promise<void> {
  const clientModels = takeClientModels(input);
  const chain = caller.pinned ? [] : fallbackChain(state.ctx.options, caller, input.info.model, clientModels);
  if (!chain.length) return run(input);
  const asked = input.info.model;
  let current = input;
  for (let i = 0; ; i++) {
    try {
      return await run(current);
    } catch (err) {
      const next = chain[i];
      if (next === undefined || !fallsBack(err, reply)) throw err;
      req.log.info({ from: current.info.model, to: next }, 'model failed; trying its fallback');
      current = { ...inputFor(input, next), fallbackFrom: asked };
      reply.header(MODEL_HEADER, next);
    }
  }
}
