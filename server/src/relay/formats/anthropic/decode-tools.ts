import type { HubOpaque, HubTool, HubToolChoice } from '../hub.ts';
import { fieldError, isObj, type Obj, optBoolean, optStr, reqStr, required } from './check.ts';
import { cacheOf } from './decode-content.ts';

/**
 * `tools`. A custom tool ({name, description, input_schema}, `type` absent or "custom") is a hub tool. A typed
 * tool (web_search_20250305, code_execution_..., bash_..., text_editor_...) has no input_schema: Anthropic
 * runs it or defines it, so it travels whole as a server tool that only an Anthropic upstream gets back
 * (as a function without parameters another model could not really use it); hosted-tools.ts maps a web
 * search to another format's own and refuses (or, on the operator's say, drops) the others.
 */
export function decodeTools(v: unknown): { tools: HubTool[]; serverTools: HubOpaque[] } {
  const tools: HubTool[] = [];
  const serverTools: HubOpaque[] = [];
  if (v === undefined || v === null) return { tools, serverTools };
  if (!Array.isArray(v)) throw fieldError('tools', 'Input should be a valid list');
  const names = new Set<string>();
  v.forEach((t, i) => {
    const path = `tools.${i}`;
    if (!isObj(t)) throw fieldError(path, 'Input should be a valid dictionary');
    const name = reqStr(t, 'name', `${path}.name`);
    if (names.has(name)) throw fieldError('tools', `Tool names must be unique. Duplicate name: '${name}'`);
    names.add(name);
    if (t.type !== undefined && t.type !== null && t.type !== 'custom') {
      if (typeof t.type !== 'string') throw fieldError(`${path}.type`, 'Input should be a valid string');
      serverTools.push({ type: 'opaque', format: 'anthropic', value: t });
      return;
    }
    tools.push(customTool(t, name, path));
  });
  return { tools, serverTools };
}

function customTool(t: Obj, name: string, path: string): HubTool {
  if (t.input_schema === undefined || t.input_schema === null) throw required(`${path}.custom.input_schema`);
  const schema = t.input_schema;
  if (!isObj(schema)) throw fieldError(`${path}.custom.input_schema`, 'Input should be a valid dictionary');
  if (schema.type !== 'object')
    throw fieldError(`${path}.custom.input_schema.type`, "Input should be 'object'");
  const description = optStr(t, 'description', `${path}.custom.description`);
  const strict = optBoolean(t, 'strict', `${path}.custom.strict`);
  return {
    name,
    ...(description !== undefined ? { description } : {}),
    parameters: schema,
    ...(strict !== undefined ? { strict } : {}),
    ...cacheOf(t),
  };
}

/**
 * `tool_choice`: auto / any / tool {name} / none, and disable_parallel_tool_use (parallelToolCalls false).
 * A named tool must be declared. Forcing a server tool becomes `auto`: the hub's named choice must name one of
 * its tools, and other formats' upstreams would refuse a choice naming a tool they were not given.
 */
export function decodeToolChoice(
  v: unknown,
  declared: Set<string>,
  serverNames: Set<string>,
): { toolChoice?: HubToolChoice; parallelToolCalls?: boolean } {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw fieldError('tool_choice', 'Input should be a valid dictionary');
  const disable = optBoolean(v, 'disable_parallel_tool_use', 'tool_choice.disable_parallel_tool_use');
  const parallel = disable === undefined ? {} : { parallelToolCalls: !disable };
  switch (v.type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...parallel };
    case 'any':
      return { toolChoice: { type: 'required' }, ...parallel };
    case 'none':
      return { toolChoice: { type: 'none' } };
    case 'tool': {
      const name = reqStr(v, 'name', 'tool_choice.tool.name');
      if (serverNames.has(name)) return { toolChoice: { type: 'auto' }, ...parallel };
      if (!declared.has(name))
        throw fieldError('tool_choice', `Tool '${name}' named in tool_choice is not in tools`);
      return { toolChoice: { type: 'tool', name }, ...parallel };
    }
    default:
      throw fieldError(
        'tool_choice',
        `Input tag '${String(v.type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`,
      );
  }
}
