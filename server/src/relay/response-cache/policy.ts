import type { RelayInput } from '../admit/relay-input.ts';

/** Operations whose answers depend only on the request: generations, embeddings and rerank. */
const CACHED_MODES = new Set(['chat', 'completions', 'embeddings', 'rerank']);

/** How many answers the request asks for (chat and completions `n`, Gemini's `candidateCount`). */
function choicesAsked(json: Record<string, unknown>): number {
  const config = json.generationConfig as Record<string, unknown> | undefined;
  const n = json.n ?? json.best_of ?? config?.candidateCount;
  return typeof n === 'number' ? n : 1;
}

/** Whether a request may be answered from the cache and its answer stored. */
export function requestCacheable(input: RelayInput, multipleChoices: boolean): boolean {
  if (!CACHED_MODES.has(input.mode) || !input.json) return false;
  return multipleChoices || choicesAsked(input.json) <= 1;
}

/** Item and block types that ask the client to run a tool, or say the model refused. */
const CLIENT_ACTION_TYPES = new Set([
  'tool_use',
  'function_call',
  'custom_tool_call',
  'computer_call',
  'local_shell_call',
  'mcp_approval_request',
  'refusal',
  'error',
  'response.failed',
]);
const STOP_REASONS_REFUSED = new Set([
  'tool_calls',
  'function_call',
  'content_filter',
  'tool_use',
  'refusal',
]);
const GEMINI_FINISH_OK = new Set(['STOP', 'MAX_TOKENS', 'FINISH_REASON_UNSPECIFIED']);

/** Whether one object of an answer (a message, a block, a stream event) says "not for the cache". */
function refusedHere(o: Record<string, unknown>): boolean {
  if (typeof o.type === 'string' && CLIENT_ACTION_TYPES.has(o.type)) return true;
  if (Array.isArray(o.tool_calls) && o.tool_calls.length > 0) return true;
  if (o.function_call && typeof o.function_call === 'object') return true;
  if (o.functionCall) return true;
  if (typeof o.refusal === 'string' && o.refusal) return true;
  if (o.error && typeof o.error === 'object') return true;
  if (o.blockReason) return true;
  for (const k of ['finish_reason', 'stop_reason'] as const)
    if (typeof o[k] === 'string' && STOP_REASONS_REFUSED.has(o[k] as string)) return true;
  if (typeof o.finishReason === 'string' && !GEMINI_FINISH_OK.has(o.finishReason)) return true;
  return false;
}

/**
 * Whether an answer (its JSON values: one body, a JSON-array stream's items, or an SSE stream's events) may be
 * kept: not when it carries a tool call the client must still run, a refusal, a blocked prompt or an error.
 * Walked with a stack, not recursion: the answer came from an upstream.
 */
export function answerCacheable(values: unknown[]): boolean {
  const stack: unknown[] = [...values];
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) if (item && typeof item === 'object') stack.push(item);
      continue;
    }
    const o = v as Record<string, unknown>;
    if (refusedHere(o)) return false;
    for (const child of Object.values(o)) if (child && typeof child === 'object') stack.push(child);
  }
  return true;
}

/** The JSON values of a body as written to the client: SSE `data:` lines, else the body itself. */
export function answerValues(body: string, stream: boolean): unknown[] | null {
  try {
    if (!stream || body.trimStart().startsWith('[')) return [JSON.parse(body)];
    const out: unknown[] = [];
    for (const line of body.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data && data !== '[DONE]') out.push(JSON.parse(data));
    }
    return out;
  } catch {
    return null;
  }
}
