import type { HubStop } from '../hub.ts';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'PROHIBITED_CONTENT',
  'BLOCKLIST',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

const FAILED = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

/**
 * Gemini's finishReason in the hub's words. Gemini says STOP after function calls too: with calls it is
 * tool_calls (or an agent client ends its loop). A malformed or unexpected function call is an error stop.
 */
export function hubStop(reason: unknown, hasToolCalls: boolean): HubStop {
  if (reason === 'MAX_TOKENS') return 'max_tokens';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content_filter';
  if (typeof reason === 'string' && FAILED.has(reason)) return 'error';
  return hasToolCalls ? 'tool_calls' : 'end';
}

/**
 * The hub's stop as Gemini's finishReason. A refusal (Anthropic's classifier stopping the answer) is SAFETY,
 * as a filtered answer; an error stop is OTHER; every natural end, with or without calls, is STOP.
 */
export function finishReason(stop: HubStop): string {
  switch (stop) {
    case 'max_tokens':
      return 'MAX_TOKENS';
    case 'content_filter':
    case 'refusal':
      return 'SAFETY';
    case 'error':
      return 'OTHER';
    default:
      return 'STOP';
  }
}

const BLOCK_REASONS = new Set(['SAFETY', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'IMAGE_SAFETY']);

/** A blocked prompt's reason as one of Gemini's blockReason values. */
export const blockReason = (reason: string) => (BLOCK_REASONS.has(reason) ? reason : 'OTHER');
