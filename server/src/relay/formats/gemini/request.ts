import { badRequest } from '../../relay-error.ts';
import { withDefined } from '../common.ts';
import type {
  CodecContext,
  HubRequest,
  HubResponseFormat,
  HubText,
  HubThinkingConfig,
  HubToolChoice,
  ReasoningEffort,
} from '../hub.ts';
import {
  field,
  invalidValue,
  isObj,
  type Obj,
  optBool,
  optEnum,
  optInt,
  optList,
  optNumber,
  optObj,
  optString,
  ruleError,
} from './check.ts';
import { decodeContents } from './decode-contents.ts';
import { decodeToolConfig, decodeTools } from './decode-tools.ts';
import { encodeContents, textParts } from './encode-contents.ts';
import { fromGeminiSchema, geminiParameters } from './schema.ts';

const INT32 = 2 ** 31 - 1;
const GC = 'generation_config';

/**
 * A generateContent body as a hub request. The model comes from the URL (ctx.model) and streaming from the
 * method (ctx.stream). Dropped, as no other format has them: safetySettings (checked, then left out: only a
 * Gemini upstream could apply them, and same-format requests are relayed untouched), labels, serviceTier,
 * store, responseModalities, speech, image and media settings, logprobs. cachedContent is kept on the hub for
 * a Gemini upstream; other upstreams cannot honour it. Unknown fields are ignored rather than refused, so
 * that newer clients keep working.
 */
export function decodeRequest(body: Obj, ctx: CodecContext): HubRequest {
  if (!isObj(body))
    throw badRequest(
      'Invalid JSON payload received. Expected a GenerateContentRequest object.',
      'invalid_argument',
    );
  const messages = decodeContents(field(body, 'contents'));
  const { tools, serverTools } = decodeTools(body);
  const toolChoice = decodeToolConfig(body, tools);
  optList(
    body,
    'safetySettings',
    '',
    'type.googleapis.com/google.ai.generativelanguage.v1beta.SafetySetting',
  ).forEach((s, i) => {
    if (!isObj(s))
      throw invalidValue(
        `safety_settings[${i}]`,
        'type.googleapis.com/google.ai.generativelanguage.v1beta.SafetySetting',
        s,
      );
  });
  const gc =
    optObj(
      body,
      'generationConfig',
      '',
      'type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig',
    ) ?? {};
  const maxTokens = optInt(gc, 'maxOutputTokens', GC, 0, INT32);
  const topK = optInt(gc, 'topK', GC, 0, INT32);
  const cachedContent = optString(body, 'cachedContent', '');
  return withDefined(
    {
      model: ctx.model,
      stream: ctx.stream,
      system: decodeSystem(field(body, 'systemInstruction')),
      messages,
      tools,
    },
    {
      serverTools: serverTools.length ? serverTools : undefined,
      toolChoice,
      maxTokens: maxTokens || undefined,
      temperature: optNumber(gc, 'temperature', GC, 0, 2),
      topP: optNumber(gc, 'topP', GC, 0, 1),
      topK: topK || undefined,
      stop: decodeStop(gc),
      n: optInt(gc, 'candidateCount', GC, 1, 8),
      seed: optInt(gc, 'seed', GC, -INT32 - 1, INT32),
      presencePenalty: optNumber(gc, 'presencePenalty', GC, -2, 2),
      frequencyPenalty: optNumber(gc, 'frequencyPenalty', GC, -2, 2),
      thinking: decodeThinking(gc),
      responseFormat: decodeResponseFormat(gc),
      cachedContent: cachedContent || undefined,
    },
  );
}

/** systemInstruction: a Content whose text parts are the system prompt (a bare string is taken too). */
function decodeSystem(v: unknown): HubText[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v ? [{ type: 'text', text: v }] : [];
  if (!isObj(v))
    throw invalidValue(
      'system_instruction',
      'type.googleapis.com/google.ai.generativelanguage.v1beta.Content',
      v,
    );
  const out: HubText[] = [];
  optList(
    v,
    'parts',
    'system_instruction',
    'type.googleapis.com/google.ai.generativelanguage.v1beta.Part',
  ).forEach((p, i) => {
    const at = `system_instruction.parts[${i}]`;
    if (!isObj(p)) throw invalidValue(at, 'type.googleapis.com/google.ai.generativelanguage.v1beta.Part', p);
    const text = optString(p, 'text', at);
    if (text) out.push({ type: 'text', text });
  });
  return out;
}

function decodeStop(gc: Obj): string[] | undefined {
  const list = optList(gc, 'stopSequences', GC, 'TYPE_STRING').map((s, i) => {
    if (typeof s !== 'string') throw invalidValue(`${GC}.stop_sequences[${i}]`, 'TYPE_STRING', s);
    return s;
  });
  const kept = list.filter((s) => s !== '');
  return kept.length ? kept : undefined;
}

const LEVELS = ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'];

/**
 * thinkingConfig: a budget of 0 turns thinking off, -1 is dynamic (on, no budget), a positive budget is the
 * hub's budget; thinkingLevel is the hub's effort; includeThoughts asks for the thinking text back.
 */
function decodeThinking(gc: Obj): HubThinkingConfig | undefined {
  const at = `${GC}.thinking_config`;
  const tc = optObj(
    gc,
    'thinkingConfig',
    GC,
    'type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig',
  );
  if (!tc) return undefined;
  const budget = optInt(tc, 'thinkingBudget', at, -1, INT32);
  const level = optEnum(
    tc,
    'thinkingLevel',
    at,
    'type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel',
    LEVELS,
  );
  const include = optBool(tc, 'includeThoughts', at);
  const effort =
    level && level !== 'THINKING_LEVEL_UNSPECIFIED' ? (level.toLowerCase() as ReasoningEffort) : undefined;
  if (budget !== undefined && effort)
    throw badRequest(
      'You can only set only one of thinking budget and thinking level.',
      'invalid_argument',
      at,
    );
  const includeThoughts = include !== undefined ? { includeThoughts: include } : {};
  if (budget === 0) return { enabled: false, ...includeThoughts };
  if (budget !== undefined && budget > 0) return { enabled: true, budgetTokens: budget, ...includeThoughts };
  if (budget === -1 || effort) return { enabled: true, ...(effort ? { effort } : {}), ...includeThoughts };
  return include ? { enabled: true, includeThoughts: true } : undefined;
}

const MIME_TYPES = ['text/plain', 'application/json', 'application/xml', 'application/yaml', 'text/x.enum'];

/**
 * responseMimeType application/json is json_object, or json_schema with responseJsonSchema (taken as is) or
 * responseSchema (Gemini's Schema, read as JSON Schema); text/x.enum with a schema is json_schema too.
 */
function decodeResponseFormat(gc: Obj): HubResponseFormat | undefined {
  const mime = optString(gc, 'responseMimeType', GC);
  if (mime !== undefined && mime !== '' && !MIME_TYPES.includes(mime))
    throw ruleError(
      `${GC}.response_mime_type`,
      `allowed mimetypes are ${MIME_TYPES.map((m) => `\`${m}\``).join(', ')}.`,
    );
  const schema = optObj(
    gc,
    'responseSchema',
    GC,
    'type.googleapis.com/google.ai.generativelanguage.v1beta.Schema',
  );
  const json = field(gc, 'responseJsonSchema') ?? field(gc, '_responseJsonSchema');
  if (json !== undefined && json !== null && !isObj(json))
    throw invalidValue(`${GC}.response_json_schema`, 'type.googleapis.com/google.protobuf.Value', json);
  const given = isObj(json) ? json : schema ? (fromGeminiSchema(schema) as Obj) : undefined;
  if (given && mime !== 'application/json' && mime !== 'text/x.enum')
    throw ruleError(
      `${GC}.response_mime_type`,
      'response_mime_type must be application/json or text/x.enum when a response schema is set.',
    );
  if (given) return { type: 'json_schema', name: 'response', schema: given };
  if (mime === 'application/json') return { type: 'json_object' };
  return undefined;
}

/** Thinking budgets for an effort on models that take budgets (Gemini 2.5 and earlier). */
const BUDGETS: Record<ReasoningEffort, number> = { minimal: 512, low: 1024, medium: 8192, high: 24576 };

/**
 * The hub's thinking as Gemini's thinkingConfig. A budget goes as thinkingBudget (every thinking model takes
 * it); an effort goes as thinkingLevel on Gemini 3 (low, or high for medium and above: the levels every
 * Gemini 3 model has) and as a budget before it. Off is a budget of 0, except where the model cannot stop
 * thinking: Gemini 3 gets level low, 2.5 Pro its minimum budget of 128. Thoughts are asked back when the
 * client asked for them, and by default whenever thinking is on.
 */
function encodeThinking(t: HubThinkingConfig, model: string): Obj {
  const gemini3 = /gemini-3/i.test(model);
  if (!t.enabled) {
    if (gemini3) return { thinkingLevel: 'low', includeThoughts: false };
    return { thinkingBudget: /2\.5-pro/i.test(model) ? 128 : 0, includeThoughts: false };
  }
  const out: Obj = { includeThoughts: t.includeThoughts ?? true };
  if (t.budgetTokens !== undefined) out.thinkingBudget = t.budgetTokens;
  else if (t.effort && gemini3)
    out.thinkingLevel = t.effort === 'minimal' || t.effort === 'low' ? 'low' : 'high';
  else if (t.effort) out.thinkingBudget = BUDGETS[t.effort];
  return out;
}

function encodeToolChoice(c: HubToolChoice): Obj {
  switch (c.type) {
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [c.name] };
    default:
      return { mode: 'AUTO' };
  }
}

/**
 * A hub request as a generateContent body for a Gemini upstream: no model (it goes in the URL) and no
 * stream flag (the method says it). Tools go as function declarations with cleaned Gemini schemas, plus the
 * Gemini server tools the client declared; parallelToolCalls and user have no Gemini field. Gemini takes at
 * most 5 stop sequences: the first 5 are sent.
 */
export function encodeRequest(req: HubRequest, ctx: CodecContext): Record<string, unknown> {
  const model = req.model || ctx.model;
  const body: Record<string, unknown> = { contents: encodeContents(req.messages, model) };
  const system = textParts(req.system);
  if (system.length) body.systemInstruction = { parts: system };
  const tools: Obj[] = [];
  if (req.tools.length)
    tools.push({
      functionDeclarations: req.tools.map((t) => {
        const parameters = geminiParameters(t.parameters);
        return {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          ...(parameters ? { parameters } : {}),
        };
      }),
    });
  for (const s of req.serverTools ?? []) if (s.format === 'gemini' && isObj(s.value)) tools.push(s.value);
  if (tools.length) body.tools = tools;
  if (req.toolChoice && req.tools.length)
    body.toolConfig = { functionCallingConfig: encodeToolChoice(req.toolChoice) };
  const gc: Obj = {};
  const set = (k: string, v: unknown) => {
    if (v !== undefined) gc[k] = v;
  };
  set('maxOutputTokens', req.maxTokens);
  set('temperature', req.temperature);
  set('topP', req.topP);
  set('topK', req.topK);
  set('stopSequences', req.stop?.length ? req.stop.slice(0, 5) : undefined);
  set('candidateCount', req.n !== undefined && req.n > 1 ? req.n : undefined);
  set('seed', req.seed);
  set('presencePenalty', req.presencePenalty);
  set('frequencyPenalty', req.frequencyPenalty);
  const rf = req.responseFormat;
  if (rf?.type === 'json_object') gc.responseMimeType = 'application/json';
  else if (rf?.type === 'json_schema') {
    gc.responseMimeType = 'application/json';
    gc.responseJsonSchema = rf.schema;
  }
  if (req.thinking) gc.thinkingConfig = encodeThinking(req.thinking, model);
  if (Object.keys(gc).length) body.generationConfig = gc;
  if (req.cachedContent) body.cachedContent = req.cachedContent;
  return body;
}
