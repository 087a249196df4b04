import { renderQuota } from '@modelgate/shared';
import type { AppContext } from '../../../context.ts';
import type { Caller } from '../../../relay/admit/auth.ts';
import { priceFor } from '../../../relay/billing/charge.ts';
import { IMAGE_TOKENS_ESTIMATE } from '../../../relay/billing/prompt-size.ts';
import { fixedQuota, tokensQuota } from '../../../relay/billing/quota.ts';
import { countText } from '../../../relay/billing/tokenizer.ts';
import { relayState } from '../../../relay/relay-state.ts';
import { CLIENT_FORMATS } from './matrix.ts';
import { plannedRequests, SCRIPTS } from './scripts.ts';

export interface CompatEstimate {
  model: string;
  /** Requests the run sends at most (every script in every client format). */
  requests: number;
  /** Quota the run costs at most as the gateway counts a prompt; per-call prices are exact. */
  quota: number;
  /** The quota as the console shows money (QuotaPerUnit, DisplayInCurrencyEnabled). */
  display: string;
  /** True when the model is priced per call, so the figure is what the run charges when every call answers. */
  perCall: boolean;
}

/**
 * What a run costs: every request of every script in every client format, priced as the relay prices it for
 * the caller's group (the prompt counted by the gateway's tokenizer, an image at its usual estimate, a tool
 * loop's second turn carrying the first answer, every answer at its max tokens). An upstream counts the prompt
 * its own way (the client format's wrapping, image tiles), so a token-priced run usually costs less than this
 * and the few tokens of wrapping are the only way it can cost more.
 */
export async function estimateRun(ctx: AppContext, caller: Caller, model: string): Promise<CompatEstimate> {
  const price = priceFor(relayState(ctx), caller, model);
  const qpu = ctx.options.float('QuotaPerUnit');
  let quota = 0;
  let requests = 0;
  for (const script of SCRIPTS)
    for (const r of plannedRequests(script)) {
      const prompt = (await countText(model, r.prompt)) + r.images * IMAGE_TOKENS_ESTIMATE + r.carried;
      const one =
        price.modelPrice >= 0 ? fixedQuota(price, qpu) : tokensQuota(prompt, r.maxTokens, price, qpu);
      quota += one * CLIENT_FORMATS.length;
      requests += CLIENT_FORMATS.length;
    }
  return {
    model,
    requests,
    quota,
    display: renderQuota(quota, {
      quotaPerUnit: qpu,
      displayInCurrency: ctx.options.bool('DisplayInCurrencyEnabled'),
    }),
    perCall: price.modelPrice >= 0,
  };
}
