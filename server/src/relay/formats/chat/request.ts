import { badRequest } from '../../relay-error.ts';
import { withDefined } from '../common.ts';
import type {
  CodecContext,
  HubOpaque,
  HubRequest,
  HubResponseFormat,
  HubThinkingConfig,
  HubToolChoice,
  ReasoningEffort,
} from '../hub.ts';
import {
  invalid,
  isObj,
  type Obj,
  optBool,
  optInt,
  optNumber,
  optObj,
  optString,
  reqString,
} from './check.ts';
import { decodeMessages } from './decode-messages.ts';
import { CUSTOM_TOOL_PARAMETERS, decodeToolChoice, decodeTools } from './decode-tools.ts';
import { encodeMessages } from './encode-messages.ts';

const MAX_TOKENS = 2 ** 30;

/** A chat completions request body as a hub request; 400 on what OpenAI's server would refuse. */
export function decodeRequest(body: Obj, _ctx: CodecContext): HubRequest {
  if (!isObj(body)) throw badRequest('request body must be a JSON object', 'invalid_request');
  const model = reqString(body, 'model', 'model');
  const { system, messages } = decodeMessages(body.messages);
  const maxTokens =
    optInt(body, 'max_completion_tokens', 1, MAX_TOKENS) ?? optInt(body, 'max_tokens', 1, MAX_TOKENS);
  optObj(body, 'stream_options'); // read by the pipeline (CodecContext.includeUsage); checked here
  return withDefined(
    {
      model,
      stream: optBool(body, 'stream') === true,
      system,
      messages,
      tools: decodeTools(body),
    },
    {
      maxTokens,
      temperature: optNumber(body, 'temperature', 0, 2),
      topP: optNumber(body, 'top_p', 0, 1),
      // Not OpenAI's, but vLLM, OpenRouter and others take it: kept for upstreams that have it.
      topK: optInt(body, 'top_k', 0, MAX_TOKENS),
      stop: decodeStop(body.stop),
      n: optInt(body, 'n', 1, 128),
      seed: optInt(body, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      frequencyPenalty: optNumber(body, 'frequency_penalty', -2, 2),
      presencePenalty: optNumber(body, 'presence_penalty', -2, 2),
      thinking: decodeEffort(body),
      responseFormat: decodeResponseFormat(body),
      toolChoice: decodeToolChoice(body),
      parallelToolCalls: optBool(body, 'parallel_tool_calls'),
      user: optString(body, 'user') ?? optString(body, 'safety_identifier'),
      serverTools: webSearchOptions(body),
    },
  );
}

/**
 * `web_search_options` (OpenAI's search models) as a hosted web search, which hosted-tools.ts maps to another
 * format's own web search.
 */
function webSearchOptions(body: Obj): HubOpaque[] | undefined {
  const o = optObj(body, 'web_search_options');
  return o ? [{ type: 'opaque', format: 'openai', value: { type: 'web_search_options', ...o } }] : undefined;
}

function decodeStop(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v ? [v] : undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string'))
    throw invalid('stop', 'expected a string or an array of strings');
  const list = v.filter((s) => s !== '');
  return list.length ? list : undefined;
}

/**
 * reasoning_effort as hub thinking: `none` turns it off, xhigh and max are the hub's high (its top level).
 */
function decodeEffort(body: Obj): HubThinkingConfig | undefined {
  const e = optString(body, 'reasoning_effort');
  if (e === undefined) return undefined;
  if (e === 'none') return { enabled: false };
  if (e === 'minimal' || e === 'low' || e === 'medium' || e === 'high') return { enabled: true, effort: e };
  if (e === 'xhigh' || e === 'max') return { enabled: true, effort: 'high' };
  throw invalid('reasoning_effort', "expected 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'");
}

function decodeResponseFormat(body: Obj): HubResponseFormat | undefined {
  const rf = optObj(body, 'response_format');
  if (!rf) return undefined;
  if (rf.type === 'text' || rf.type === 'json_object') return { type: rf.type };
  if (rf.type !== 'json_schema')
    throw invalid('response_format.type', "expected 'text', 'json_object' or 'json_schema'");
  const js = rf.json_schema;
  if (!isObj(js) || typeof js.name !== 'string' || !js.name)
    throw invalid('response_format.json_schema.name', 'expected a name');
  if (js.schema !== undefined && !isObj(js.schema))
    throw invalid('response_format.json_schema.schema', 'expected a JSON Schema object');
  return {
    type: 'json_schema',
    name: js.name,
    schema: isObj(js.schema) ? js.schema : {},
    ...(typeof js.strict === 'boolean' ? { strict: js.strict } : {}),
  };
}

/** A thinking budget as an effort: up to 1024 tokens is low, up to 8192 medium, more is high. */
export function effortOf(t: HubThinkingConfig | undefined): ReasoningEffort | undefined {
  if (!t?.enabled) return undefined;
  if (t.effort) return t.effort;
  if (t.budgetTokens === undefined) return undefined;
  return t.budgetTokens <= 1024 ? 'low' : t.budgetTokens <= 8192 ? 'medium' : 'high';
}

function encodeToolChoice(c: HubToolChoice): unknown {
  return c.type === 'tool' ? { type: 'function', function: { name: c.name } } : c.type;
}

/**
 * A hub request as the body an OpenAI-compatible chat server accepts. Custom tools become functions with
 * one string parameter `input`; streams always ask for usage (otherwise the upstream reports none); the
 * limit goes as max_tokens, which every compatible server reads (OpenAI's reasoning models want
 * max_completion_tokens: a host body edit). top_k is dropped: OpenAI refuses it.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: req.model,
    messages: encodeMessages(req.system, req.messages),
  };
  if (req.tools.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.custom ? CUSTOM_TOOL_PARAMETERS : t.parameters,
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
      },
    }));
    if (req.toolChoice) body.tool_choice = encodeToolChoice(req.toolChoice);
    if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  }
  const set = (k: string, v: unknown) => {
    if (v !== undefined) body[k] = v;
  };
  set('max_tokens', req.maxTokens);
  set('temperature', req.temperature);
  set('top_p', req.topP);
  set('stop', req.stop?.length ? req.stop : undefined);
  set('n', req.n);
  set('seed', req.seed);
  set('frequency_penalty', req.frequencyPenalty);
  set('presence_penalty', req.presencePenalty);
  set('reasoning_effort', effortOf(req.thinking));
  set('response_format', encodeResponseFormat(req.responseFormat));
  set('user', req.user);
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function encodeResponseFormat(rf: HubResponseFormat | undefined): unknown {
  if (rf?.type !== 'json_schema') return rf;
  return {
    type: 'json_schema',
    json_schema: {
      name: rf.name,
      schema: rf.schema,
      ...(rf.strict !== undefined ? { strict: rf.strict } : {}),
    },
  };
}
