import { badRequest } from '../../relay-error.ts';
import { withDefined } from '../common.ts';
import type { CodecContext, HubRequest, HubThinkingConfig, ReasoningEffort } from '../hub.ts';
import {
  fieldError,
  isObj,
  type Obj,
  optBoolean,
  optInteger,
  optList,
  optNum,
  optObject,
  optStr,
  required,
} from './check.ts';
import { decodeMessages, decodeSystem } from './decode-messages.ts';
import { decodeToolChoice, decodeTools } from './decode-tools.ts';
import { cacheControl, encodeMessages } from './encode-messages.ts';

const MAX_TOKENS = 2 ** 30;

/** An Anthropic Messages request body as a hub request; 400 on what Anthropic's server would refuse. */
export function decodeRequest(body: Obj, _ctx: CodecContext): HubRequest {
  if (!isObj(body)) throw badRequest('request body must be a JSON object', 'invalid_request');
  if (body.model === undefined || body.model === null) throw required('model');
  if (typeof body.model !== 'string' || !body.model)
    throw fieldError('model', 'Input should be a valid string');
  if (body.max_tokens === undefined || body.max_tokens === null) throw required('max_tokens');
  const maxTokens = optInteger(body, 'max_tokens', 'max_tokens', 1, MAX_TOKENS) as number;
  const messages = decodeMessages(body.messages);
  const { tools, serverTools } = decodeTools(body.tools);
  const serverNames = new Set(serverTools.map((t) => String((t.value as Obj).name)));
  const { toolChoice, parallelToolCalls } = decodeToolChoice(
    body.tool_choice,
    new Set(tools.map((t) => t.name)),
    serverNames,
  );
  const thinking = decodeThinking(body);
  const metadata = optObject(body, 'metadata', 'metadata');
  const user = metadata ? optStr(metadata, 'user_id', 'metadata.user_id') : undefined;
  const stop = optList(body, 'stop_sequences', 'stop_sequences');
  stop?.forEach((s, i) => {
    if (typeof s !== 'string') throw fieldError(`stop_sequences.${i}`, 'Input should be a valid string');
  });
  const responseFormat = decodeOutputFormat(body);
  return withDefined(
    {
      model: body.model,
      stream: optBoolean(body, 'stream', 'stream') === true,
      system: decodeSystem(body.system),
      messages,
      tools,
    },
    {
      serverTools: serverTools.length ? serverTools : undefined,
      toolChoice,
      parallelToolCalls,
      maxTokens,
      temperature: optNum(body, 'temperature', 'temperature', 0, 1),
      topP: optNum(body, 'top_p', 'top_p', 0, 1),
      topK: optInteger(body, 'top_k', 'top_k', 0, MAX_TOKENS),
      stop: stop?.length ? (stop as string[]) : undefined,
      thinking,
      responseFormat,
      user: user || undefined,
    },
  );
}

const EFFORTS: Record<string, ReasoningEffort> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

/**
 * `thinking` ({type:"enabled", budget_tokens} | {type:"disabled"} | {type:"adaptive"}) and the effort of
 * `output_config.effort`. display "omitted" asks for no thinking text back (includeThoughts false). A budget
 * above max_tokens is accepted: with interleaved thinking (Claude Code's beta header) Anthropic takes it.
 */
function decodeThinking(body: Obj): HubThinkingConfig | undefined {
  const oc = optObject(body, 'output_config', 'output_config');
  const e = oc ? optStr(oc, 'effort', 'output_config.effort') : undefined;
  if (e !== undefined && !EFFORTS[e])
    throw fieldError('output_config.effort', "Input should be 'low', 'medium', 'high', 'xhigh' or 'max'");
  const effort = e ? { effort: EFFORTS[e] } : {};
  const t = optObject(body, 'thinking', 'thinking');
  if (!t) return e ? { enabled: true, ...effort } : undefined;
  const display = t.display === 'omitted' ? { includeThoughts: false } : { includeThoughts: true };
  switch (t.type) {
    case 'disabled':
      return { enabled: false };
    case 'adaptive':
      return { enabled: true, ...effort, ...display };
    case 'enabled': {
      if (t.budget_tokens === undefined || t.budget_tokens === null)
        throw required('thinking.enabled.budget_tokens');
      const budget = optInteger(
        t,
        'budget_tokens',
        'thinking.enabled.budget_tokens',
        1024,
        MAX_TOKENS,
      ) as number;
      return { enabled: true, budgetTokens: budget, ...effort, ...display };
    }
    default:
      throw fieldError(
        'thinking',
        `Input tag '${String(t.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`,
      );
  }
}

/** `output_config.format` ({type:"json_schema", schema}): structured output as the hub's json_schema. */
function decodeOutputFormat(body: Obj): HubRequest['responseFormat'] {
  const oc = isObj(body.output_config) ? body.output_config : undefined;
  const f = oc ? optObject(oc, 'format', 'output_config.format') : undefined;
  if (!f) return undefined;
  if (f.type !== 'json_schema')
    throw fieldError('output_config.format.type', "Input should be 'json_schema'");
  if (!isObj(f.schema)) throw required('output_config.format.schema');
  return { type: 'json_schema', name: 'output', schema: f.schema };
}

/**
 * Thinking budgets for an effort level (budget_tokens must be at least 1024). High stays at 16384 so that
 * with the default max_tokens added on top the request still fits a 32k output limit (Opus 4).
 */
export const EFFORT_BUDGET: Record<ReasoningEffort, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
};

/** The thinking budget to send, or undefined when thinking stays off. */
function budgetOf(t: HubThinkingConfig | undefined): number | undefined {
  if (!t?.enabled) return undefined;
  const b = t.budgetTokens ?? (t.effort ? EFFORT_BUDGET[t.effort] : EFFORT_BUDGET.medium);
  return Math.max(1024, Math.floor(b));
}

/**
 * A hub request as the body of POST /v1/messages:
 * - max_tokens is the request's, else the channel's default, else 8192; with thinking it must exceed the
 *   budget, so a smaller one is raised to budget + max_tokens (the limit then applies to the answer after
 *   thinking).
 * - thinking goes as {type:"enabled", budget_tokens} (effort levels as EFFORT_BUDGET). Anthropic refuses it
 *   with a forced tool choice, and when the last assistant turn calls tools without a verifiable thinking
 *   block (a conversation that comes from another format): thinking is then left off.
 * - temperature (clamped to 1) and top_k only without thinking; top_p with thinking only from 0.95.
 * - n > 1 is refused; seed and penalties have no Anthropic field and are dropped.
 * - a JSON response format becomes a closing system instruction: Messages has no JSON mode that every model
 *   and every Anthropic-compatible server takes.
 * - at most 4 cache_control marks (Anthropic's limit): the last 4 are kept.
 */
export function encodeRequest(req: HubRequest, ctx: CodecContext): Record<string, unknown> {
  if (req.n !== undefined && req.n > 1)
    throw badRequest('Anthropic models give one answer per request: n must be 1', 'invalid_value', 'n');
  const messages = encodeMessages(req.messages);
  let budget = budgetOf(req.thinking);
  const forced = req.toolChoice?.type === 'required' || req.toolChoice?.type === 'tool';
  if (budget !== undefined && (forced || unsignedToolTurn(messages))) budget = undefined;

  let maxTokens = req.maxTokens ?? ctx.defaultMaxTokens ?? 8192;
  if (budget !== undefined && maxTokens <= budget) maxTokens += budget;
  const body: Record<string, unknown> = { model: req.model, max_tokens: maxTokens };

  const system = req.system
    .filter((t) => t.text.trim())
    .map((t) => ({ type: 'text', text: t.text, ...cacheControl(t.cache) }));
  const instruction = formatInstruction(req.responseFormat);
  if (instruction) system.push({ type: 'text', text: instruction });
  if (system.length) body.system = system;
  body.messages = messages;

  const tools: Obj[] = req.tools.map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: t.parameters,
    ...(t.strict !== undefined ? { strict: t.strict } : {}),
    ...cacheControl(t.cache),
  }));
  for (const s of req.serverTools ?? [])
    if (s.format === 'anthropic' && isObj(s.value)) tools.push({ ...s.value });
  if (tools.length) {
    body.tools = tools;
    const choice = toolChoice(req);
    if (choice) body.tool_choice = choice;
  } else if (req.toolChoice?.type === 'none') body.tool_choice = { type: 'none' };

  if (budget !== undefined) {
    body.thinking = { type: 'enabled', budget_tokens: budget };
    if (req.topP !== undefined && req.topP >= 0.95) body.top_p = req.topP;
  } else {
    if (req.temperature !== undefined) body.temperature = Math.min(1, req.temperature);
    if (req.topP !== undefined) body.top_p = req.topP;
    if (req.topK !== undefined) body.top_k = req.topK;
  }
  const stop = (req.stop ?? []).filter((s) => s.trim());
  if (stop.length) body.stop_sequences = stop;
  if (req.user) body.metadata = { user_id: req.user };
  if (req.stream) body.stream = true;
  limitCacheMarks(body);
  return body;
}

function toolChoice(req: HubRequest): Obj | undefined {
  const c = req.toolChoice;
  const noParallel = req.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (!c) return req.parallelToolCalls === false ? { type: 'auto', ...noParallel } : undefined;
  switch (c.type) {
    case 'none':
      return { type: 'none' };
    case 'required':
      return { type: 'any', ...noParallel };
    case 'tool':
      return { type: 'tool', name: c.name, ...noParallel };
    default:
      return { type: 'auto', ...noParallel };
  }
}

/** The last assistant turn calls tools but does not open with a thinking block Anthropic can verify. */
function unsignedToolTurn(messages: Array<{ role: string; content: Obj[] }>): boolean {
  const last = messages.findLast((m) => m.role === 'assistant');
  if (!last?.content.some((b) => b.type === 'tool_use')) return false;
  const first = last.content[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

function formatInstruction(rf: HubRequest['responseFormat']): string | undefined {
  if (rf?.type === 'json_object') return 'Respond with a single valid JSON object and nothing else.';
  if (rf?.type === 'json_schema')
    return `Respond with a single valid JSON value and nothing else, matching this JSON Schema (${rf.name}):\n${JSON.stringify(rf.schema)}`;
  return undefined;
}

/** Removes the earliest cache_control marks beyond Anthropic's limit of 4 (tools, system, then messages). */
function limitCacheMarks(body: Record<string, unknown>) {
  const marked: Obj[] = [];
  const visit = (blocks: unknown) => {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks) {
      if (!isObj(b)) continue;
      if (b.type === 'tool_result') visit(b.content);
      if (b.cache_control) marked.push(b);
    }
  };
  visit(body.tools);
  visit(body.system);
  for (const m of (body.messages as Array<{ content: Obj[] }>) ?? []) visit(m.content);
  for (const b of marked.slice(0, Math.max(0, marked.length - 4))) delete b.cache_control;
}
