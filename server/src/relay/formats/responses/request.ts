import { badRequest } from '../../relay-error.ts';
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
} from '../chat/check.ts';
import { effortOf } from '../chat/request.ts';
import { withDefined } from '../common.ts';
import type { CodecContext, HubRequest, HubResponseFormat, HubThinkingConfig } from '../hub.ts';
import { decodeInput } from './decode-input.ts';
import { decodeToolChoice, decodeTools } from './decode-tools.ts';
import { encodeInput } from './encode-input.ts';

const MAX_TOKENS = 2 ** 30;

/**
 * A Responses request body (POST /v1/responses) as a hub request; 400 on what OpenAI's server would refuse.
 * store, include, metadata, prompt_cache_key, truncation and service_tier are checked where typed but have
 * no hub field; previous_response_id is kept for the pipeline, which alone knows whether the channel can
 * resolve it.
 */
export function decodeRequest(body: Obj, _ctx: CodecContext): HubRequest {
  if (!isObj(body)) throw badRequest('request body must be a JSON object', 'invalid_request');
  const model = reqString(body, 'model', 'model');
  const previousResponseId = optString(body, 'previous_response_id');
  const hasReferences =
    Array.isArray(body.input) && body.input.some((it) => isObj(it) && it.type === 'item_reference');
  const elsewhere = !!previousResponseId || body.conversation != null || body.prompt != null;
  if ((body.input === undefined || body.input === null) && !elsewhere)
    throw badRequest("Missing required parameter: 'input'.", 'missing_required_parameter', 'input');
  const { system, messages } = decodeInput(body.input, elsewhere || hasReferences);
  const instructions = body.instructions;
  if (typeof instructions === 'string') {
    if (instructions) system.unshift({ type: 'text', text: instructions });
  } else if (instructions !== undefined && instructions !== null)
    throw invalid('instructions', 'expected a string');
  optBool(body, 'store');
  optObj(body, 'metadata');
  if (body.include !== undefined && body.include !== null) {
    if (!Array.isArray(body.include) || !body.include.every((s) => typeof s === 'string'))
      throw invalid('include', 'expected an array of strings');
  }
  const { tools, serverTools } = decodeTools(body);
  return withDefined(
    {
      model,
      stream: optBool(body, 'stream') === true,
      system,
      messages,
      tools,
    },
    {
      serverTools: serverTools.length ? serverTools : undefined,
      toolChoice: decodeToolChoice(body),
      parallelToolCalls: optBool(body, 'parallel_tool_calls'),
      maxTokens: optInt(body, 'max_output_tokens', 1, MAX_TOKENS),
      temperature: optNumber(body, 'temperature', 0, 2),
      topP: optNumber(body, 'top_p', 0, 1),
      thinking: decodeReasoning(body),
      responseFormat: decodeTextFormat(body),
      user: optString(body, 'safety_identifier') ?? optString(body, 'user'),
      previousResponseId,
    },
  );
}

const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * `reasoning` {effort, summary} as hub thinking: effort `none` turns it off, xhigh is the hub's high (its top
 * level); a summary asked for (auto, concise, detailed) is includeThoughts.
 */
function decodeReasoning(body: Obj): HubThinkingConfig | undefined {
  const r = optObj(body, 'reasoning');
  if (!r) return undefined;
  const effort = optString(r, 'effort');
  const summary = r.summary ?? r.generate_summary;
  if (
    summary !== undefined &&
    summary !== null &&
    !['auto', 'concise', 'detailed'].includes(summary as string)
  )
    throw invalid('reasoning.summary', "expected 'auto', 'concise' or 'detailed'");
  const includeThoughts = summary ? { includeThoughts: true } : {};
  if (effort === undefined) return summary ? { enabled: true, ...includeThoughts } : undefined;
  if (effort === 'none') return { enabled: false };
  if (EFFORTS.has(effort)) return { enabled: true, effort: effort as 'low', ...includeThoughts };
  if (effort === 'xhigh') return { enabled: true, effort: 'high', ...includeThoughts };
  throw invalid('reasoning.effort', "expected 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'");
}

/** `text.format`: text, json_object, or json_schema {name, schema, strict} (flat, not nested as in chat). */
function decodeTextFormat(body: Obj): HubResponseFormat | undefined {
  const text = optObj(body, 'text');
  const f = text ? optObj(text, 'format', 'text.format') : undefined;
  if (!f) return undefined;
  if (f.type === 'text' || f.type === 'json_object') return { type: f.type };
  if (f.type !== 'json_schema')
    throw invalid('text.format.type', "expected 'text', 'json_object' or 'json_schema'");
  if (typeof f.name !== 'string' || !f.name) throw invalid('text.format.name', 'expected a name');
  if (!isObj(f.schema)) throw invalid('text.format.schema', 'expected a JSON Schema object');
  return {
    type: 'json_schema',
    name: f.name,
    schema: f.schema,
    ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
  };
}

/**
 * A hub request as the body OpenAI's (or Azure's) /v1/responses accepts: stateless (`store: false`, the
 * whole conversation in `input`), system as `instructions`, flat tools with `strict` said explicitly
 * (Responses makes function tools strict by default, which refuses most schemas), custom tools back as
 * custom, hosted tools (server tools made by Responses) put back, encrypted reasoning asked for whenever reasoning is on. Stop sequences, top_k, n, seed and the
 * penalties have no Responses parameter and are left out.
 */
export function encodeRequest(req: HubRequest, _ctx: CodecContext): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model };
  const instructions = req.system.map((s) => s.text).join('\n\n');
  if (instructions) body.instructions = instructions;
  body.input = encodeInput(req.messages);
  const serverTools = (req.serverTools ?? []).flatMap((t) =>
    t.format === 'responses' && isObj(t.value) ? [t.value] : [],
  );
  if (req.tools.length || serverTools.length) {
    const tools: unknown[] = req.tools.map((t) =>
      t.custom
        ? {
            type: 'custom',
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
          }
        : {
            type: 'function',
            name: t.name,
            ...(t.description !== undefined ? { description: t.description } : {}),
            parameters: t.parameters,
            strict: t.strict ?? false,
          },
    );
    body.tools = [...tools, ...serverTools];
    const c = req.toolChoice;
    if (c)
      body.tool_choice =
        c.type === 'tool'
          ? { type: req.tools.find((t) => t.name === c.name)?.custom ? 'custom' : 'function', name: c.name }
          : c.type;
    if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  }
  if (req.maxTokens !== undefined) body.max_output_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  const effort = effortOf(req.thinking);
  if (req.thinking?.enabled) {
    body.reasoning = {
      ...(effort ? { effort } : {}),
      ...(req.thinking.includeThoughts ? { summary: 'auto' } : {}),
    };
    body.include = ['reasoning.encrypted_content'];
  }
  const rf = req.responseFormat;
  if (rf)
    body.text = {
      format:
        rf.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: rf.name,
              schema: rf.schema,
              ...(rf.strict !== undefined ? { strict: rf.strict } : {}),
            }
          : { type: rf.type },
    };
  if (req.user !== undefined) body.user = req.user;
  body.store = false;
  if (req.stream) body.stream = true;
  return body;
}
