import { invalid, isObj, type Obj } from '../chat/check.ts';
import { CUSTOM_TOOL_PARAMETERS } from '../chat/decode-tools.ts';
import type { HubOpaque, HubTool, HubToolChoice } from '../hub.ts';

/**
 * `tools`: flat function tools and custom (freeform) tools as hub tools. Hosted tools (web_search,
 * file_search, image_generation, code_interpreter, computer_use, mcp, local_shell ...) run inside OpenAI: they
 * travel whole as Responses server tools; for an upstream of another format hosted-tools.ts maps a web search
 * to that format's own and refuses (or, on the operator's say, drops) the others.
 */
export function decodeTools(body: Obj): { tools: HubTool[]; serverTools: HubOpaque[] } {
  const list = body.tools;
  const out: HubTool[] = [];
  const serverTools: HubOpaque[] = [];
  if (list === undefined || list === null) return { tools: out, serverTools };
  if (!Array.isArray(list)) throw invalid('tools', 'expected an array');
  list.forEach((t, i) => {
    const at = `tools[${i}]`;
    if (!isObj(t) || typeof t.type !== 'string') throw invalid(`${at}.type`, 'expected a tool type');
    if (t.type === 'function') out.push(functionTool(t, at));
    else if (t.type === 'custom') out.push(customTool(t, at));
    else serverTools.push({ type: 'opaque', format: 'responses', value: t });
  });
  return { tools: out, serverTools };
}

const missing = (param: string) =>
  invalid(param, 'this required parameter is missing (Responses tools are flat: {type, name, parameters})');

function functionTool(t: Obj, at: string): HubTool {
  if (typeof t.name !== 'string' || !t.name) throw missing(`${at}.name`);
  if (t.parameters !== undefined && t.parameters !== null && !isObj(t.parameters))
    throw invalid(`${at}.parameters`, 'expected a JSON Schema object');
  return {
    name: t.name,
    ...(typeof t.description === 'string' ? { description: t.description } : {}),
    parameters: isObj(t.parameters) ? t.parameters : { type: 'object', properties: {} },
    ...(typeof t.strict === 'boolean' ? { strict: t.strict } : {}),
  };
}

/**
 * A custom tool, exposed elsewhere as a function with one string parameter `input`. A grammar format
 * (Codex's apply_patch declares a Lark grammar) joins the description: for a model that sees a plain string
 * parameter it is the only statement of what the input must look like.
 */
function customTool(t: Obj, at: string): HubTool {
  if (typeof t.name !== 'string' || !t.name) throw invalid(`${at}.name`, 'expected a tool name');
  const f = isObj(t.format) ? t.format : undefined;
  let description = typeof t.description === 'string' ? t.description : '';
  if (f?.type === 'grammar' && typeof f.definition === 'string' && f.definition) {
    const syntax = typeof f.syntax === 'string' ? f.syntax : 'grammar';
    description += `${description ? '\n\n' : ''}The input must match this ${syntax} grammar:\n${f.definition}`;
  }
  return {
    name: t.name,
    ...(description ? { description } : {}),
    parameters: CUSTOM_TOOL_PARAMETERS,
    custom: true,
  };
}

const MODES = new Set(['none', 'auto', 'required']);

/**
 * `tool_choice`: a mode, a named function or custom tool, or allowed_tools (its mode only: the hub has no
 * allow-list). A hosted tool's choice becomes `auto`: that tool is not in the hub, and `required` would force
 * some other one.
 */
export function decodeToolChoice(body: Obj): HubToolChoice | undefined {
  const v = body.tool_choice;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    if (!MODES.has(v)) throw invalid('tool_choice', "expected 'none', 'auto', 'required' or a tool object");
    return { type: v as 'none' | 'auto' | 'required' };
  }
  if (!isObj(v) || typeof v.type !== 'string')
    throw invalid('tool_choice', "expected a string or an object with a 'type'");
  if (v.type === 'function' || v.type === 'custom') {
    if (typeof v.name !== 'string' || !v.name) throw invalid('tool_choice.name', 'expected a tool name');
    return { type: 'tool', name: v.name };
  }
  if (v.type === 'allowed_tools') return { type: v.mode === 'required' ? 'required' : 'auto' };
  return { type: 'auto' };
}
