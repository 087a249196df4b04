import type { HubStop } from '../hub.ts';

/**
 * OpenAI's finish_reason in the hub's words. Some OpenAI-compatible servers say `stop` after tool calls:
 * with calls present the stop is tool_calls, or an Anthropic client would end its agent loop.
 */
export function hubStop(finish: unknown, hasToolCalls: boolean): HubStop {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    default:
      return hasToolCalls ? 'tool_calls' : 'end';
  }
}

/**
 * The hub's stop as OpenAI's finish_reason: tool_calls exactly when there are calls (clients look for the
 * calls only then), unless the answer was cut or filtered.
 */
export function finishReason(stop: HubStop, hasToolCalls: boolean): string {
  switch (stop) {
    case 'max_tokens':
      return 'length';
    case 'content_filter':
    case 'refusal':
      return 'content_filter';
    default:
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}
