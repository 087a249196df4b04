import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import { emptyUsage, type HubStop, type HubUsage } from '../../formats/hub.ts';

/**
 * Cohere's usage as hub usage: the billed units (what Cohere charges), else the raw token counts (which add
 * the prompt template's tokens).
 */
export function decodeUsage(u: unknown): HubUsage {
  const billed = isObj(u) && isObj(u.billed_units) ? u.billed_units : {};
  const tokens = isObj(u) && isObj(u.tokens) ? u.tokens : {};
  return {
    ...emptyUsage(),
    input: count(billed.input_tokens) || count(tokens.input_tokens),
    output: count(billed.output_tokens) || count(tokens.output_tokens),
  };
}

/** Cohere's finish_reason in the hub's words (ERROR and TIMEOUT are errors, read by the decoders). */
export function hubStop(reason: unknown, hasCalls: boolean): HubStop {
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (reason === 'STOP_SEQUENCE') return 'stop_sequence';
  return reason === 'TOOL_CALL' || hasCalls ? 'tool_calls' : 'end';
}
