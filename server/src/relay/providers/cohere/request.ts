import { CUSTOM_TOOL_PARAMETERS } from '../../formats/chat/decode-tools.ts';
import type { CodecContext, HubRequest, HubResponseFormat, HubTool } from '../../formats/hub.ts';
import { encodeMessages } from './messages.ts';

type Obj = Record<string, unknown>;

const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/**
 * A hub request as Cohere's Chat v2 body (`POST /v2/chat`). top_p and top_k go as Cohere's p (0.01-0.99) and
 * k (0-500); a forced tool becomes tool_choice REQUIRED with that tool alone (Cohere names no tool in its
 * choice); json_schema becomes a json_object with its schema; thinking is sent only when the client set it.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Obj {
  const body: Obj = { model: req.model, messages: encodeMessages(req.system, req.messages) };
  if (req.stream) body.stream = true;
  const choice = req.toolChoice;
  const tools = choice?.type === 'tool' ? req.tools.filter((t) => t.name === choice.name) : req.tools;
  if (tools.length) {
    body.tools = tools.map(toolOf);
    if (choice?.type === 'none') body.tool_choice = 'NONE';
    else if (choice?.type === 'required' || choice?.type === 'tool') body.tool_choice = 'REQUIRED';
  }
  const set = (k: string, v: unknown) => {
    if (v !== undefined) body[k] = v;
  };
  set('max_tokens', req.maxTokens);
  set('temperature', req.temperature);
  set('p', req.topP === undefined ? undefined : clamp(req.topP, 0.01, 0.99));
  set('k', req.topK === undefined ? undefined : clamp(req.topK, 0, 500));
  set('stop_sequences', req.stop?.length ? req.stop : undefined);
  set('seed', req.seed);
  set('frequency_penalty', req.frequencyPenalty);
  set('presence_penalty', req.presencePenalty);
  set('response_format', responseFormat(req.responseFormat));
  if (req.thinking)
    body.thinking = req.thinking.enabled
      ? { type: 'enabled', ...(req.thinking.budgetTokens ? { token_budget: req.thinking.budgetTokens } : {}) }
      : { type: 'disabled' };
  return body;
}

const toolOf = (t: HubTool) => ({
  type: 'function',
  function: {
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: t.custom ? CUSTOM_TOOL_PARAMETERS : t.parameters,
  },
});

function responseFormat(rf: HubResponseFormat | undefined): unknown {
  if (!rf || rf.type === 'text') return undefined;
  return rf.type === 'json_object'
    ? { type: 'json_object' }
    : { type: 'json_object', json_schema: rf.schema };
}
