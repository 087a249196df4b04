import { badRequest } from '../../relay-error.ts';
import type { HubOpaque, HubTool, HubToolChoice } from '../hub.ts';
import {
  field,
  invalidValue,
  isObj,
  join,
  type Obj,
  optEnum,
  optList,
  optObj,
  optString,
  ruleError,
} from './check.ts';
import { fromGeminiSchema } from './schema.ts';

/** Google's rule for function names. */
const NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

const EMPTY_PARAMETERS = { type: 'object', properties: {} };

/**
 * `tools`: function declarations become hub tools (`parameters` in Gemini's Schema is read as JSON Schema,
 * `parametersJsonSchema` taken as is); Google-run tools (googleSearch, codeExecution, urlContext, fileSearch,
 * googleMaps ...) become Gemini server tools, which a Gemini upstream gets back; for other upstreams
 * hosted-tools.ts maps googleSearch to their web search and refuses (or, on the operator's say, drops) the rest.
 */
export function decodeTools(body: Obj): { tools: HubTool[]; serverTools: HubOpaque[] } {
  const tools: HubTool[] = [];
  const serverTools: HubOpaque[] = [];
  optList(body, 'tools', '', 'type.googleapis.com/google.ai.generativelanguage.v1beta.Tool').forEach(
    (t, i) => {
      const at = `tools[${i}]`;
      if (!isObj(t))
        throw invalidValue(at, 'type.googleapis.com/google.ai.generativelanguage.v1beta.Tool', t);
      for (const [key, value] of Object.entries(t)) {
        if (value === undefined || value === null) continue;
        if (key === 'functionDeclarations' || key === 'function_declarations') {
          if (!Array.isArray(value))
            throw invalidValue(
              `${at}.function_declarations`,
              'type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionDeclaration',
              value,
            );
          value.forEach((d, j) => {
            tools.push(declaration(d, `${at}.function_declarations[${j}]`));
          });
        } else serverTools.push({ type: 'opaque', format: 'gemini', value: { [key]: value } });
      }
    },
  );
  return { tools, serverTools };
}

function declaration(d: unknown, at: string): HubTool {
  if (!isObj(d))
    throw invalidValue(at, 'type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionDeclaration', d);
  const name = optString(d, 'name', at);
  if (!name || !NAME.test(name))
    throw ruleError(
      `${at}.name`,
      'Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), ' +
        'underscores (_), dots (.), colons (:) or dashes (-), with a maximum length of 64.',
    );
  const description = optString(d, 'description', at);
  const schema = optObj(
    d,
    'parameters',
    at,
    'type.googleapis.com/google.ai.generativelanguage.v1beta.Schema',
  );
  const jsonSchema = field(d, 'parametersJsonSchema');
  if (schema && jsonSchema !== undefined && jsonSchema !== null)
    throw ruleError(`${at}.parameters`, 'parameters and parameters_json_schema cannot both be set.');
  if (jsonSchema !== undefined && jsonSchema !== null && !isObj(jsonSchema))
    throw invalidValue(
      `${at}.parameters_json_schema`,
      'type.googleapis.com/google.protobuf.Value',
      jsonSchema,
    );
  const parameters = isObj(jsonSchema)
    ? jsonSchema
    : schema
      ? (fromGeminiSchema(schema) as Obj)
      : EMPTY_PARAMETERS;
  return { name, ...(description !== undefined ? { description } : {}), parameters };
}

const MODES = ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'];

/**
 * `toolConfig.functionCallingConfig`: AUTO and VALIDATED are auto, NONE none, ANY required, or the named tool
 * when exactly one function is allowed. The hub has no allow-list: with several allowed names every declared
 * tool stays callable.
 */
export function decodeToolConfig(body: Obj, tools: HubTool[]): HubToolChoice | undefined {
  const tc = optObj(
    body,
    'toolConfig',
    '',
    'type.googleapis.com/google.ai.generativelanguage.v1beta.ToolConfig',
  );
  if (!tc) return undefined;
  const at = 'tool_config.function_calling_config';
  const fcc = optObj(tc, 'functionCallingConfig', 'tool_config', 'FunctionCallingConfig');
  if (!fcc) return undefined;
  const mode = optEnum(
    fcc,
    'mode',
    at,
    'type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode',
    MODES,
  );
  const allowed = optList(fcc, 'allowedFunctionNames', at, 'TYPE_STRING').map((n, k) => {
    if (typeof n !== 'string')
      throw invalidValue(`${join(at, 'allowedFunctionNames')}[${k}]`, 'TYPE_STRING', n);
    return n;
  });
  if ((mode === 'ANY' || allowed.length) && tools.length === 0)
    throw badRequest('Function calling config is set without function_declarations.', 'invalid_argument', at);
  for (const n of allowed)
    if (!tools.some((t) => t.name === n))
      throw ruleError(
        join(at, 'allowedFunctionNames'),
        `allowed_function_names contains ${JSON.stringify(n)}, which is not a declared function.`,
      );
  switch (mode) {
    case 'NONE':
      return { type: 'none' };
    case 'ANY':
      return allowed.length === 1 ? { type: 'tool', name: allowed[0] } : { type: 'required' };
    case 'AUTO':
    case 'VALIDATED':
      return { type: 'auto' };
    default:
      return undefined;
  }
}
