import type { HubStop } from '../hub.ts';

/**
 * Anthropic's stop_reason in the hub's words. model_context_window_exceeded is a cut answer (max_tokens);
 * an unknown or missing reason is a natural end, or tool_calls when the answer has tool calls.
 */
export function hubStop(reason: unknown, hasToolCalls: boolean): HubStop {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_use':
      return 'tool_calls';
    case 'pause_turn':
      return 'pause';
    case 'refusal':
      return 'refusal';
    default:
      return hasToolCalls ? 'tool_calls' : 'end';
  }
}

/**
 * The hub's stop as Anthropic's stop_reason. A natural end with tool calls is tool_use (Claude Code ends its
 * agent loop on end_turn); a filtered answer or a blocked prompt is a refusal.
 */
export function stopReason(stop: HubStop, hasToolCalls: boolean, promptBlocked?: string): string {
  if (promptBlocked) return 'refusal';
  switch (stop) {
    case 'max_tokens':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_calls':
      return 'tool_use';
    case 'pause':
      return 'pause_turn';
    case 'refusal':
    case 'content_filter':
      return 'refusal';
    default:
      return hasToolCalls ? 'tool_use' : 'end_turn';
  }
}
