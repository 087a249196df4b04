import type { HubTool, HubToolChoice } from '../hub.ts';
import { invalid, isObj, type Obj } from './check.ts';

/** The parameters every custom (freeform) tool gets when exposed as a function: one string `input`. */
export const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string' } },
  required: ['input'],
};

/** A function definition (nested under `function`, flat, or a legacy `functions` entry). */
function functionTool(f: Obj, at: string): HubTool {
  if (typeof f.name !== 'string' || !f.name) throw invalid(`${at}.name`, 'expected a function name');
  if (f.parameters !== undefined && f.parameters !== null && !isObj(f.parameters))
    throw invalid(`${at}.parameters`, 'expected a JSON Schema object');
  return {
    name: f.name,
    ...(typeof f.description === 'string' ? { description: f.description } : {}),
    parameters: isObj(f.parameters) ? f.parameters : { type: 'object', properties: {} },
    ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
  };
}

/**
 * `tools` (function tools nested under `function`, or flat as some clients send them; custom freeform
 * tools) and the legacy `functions`.
 */
export function decodeTools(body: Obj): HubTool[] {
  const out: HubTool[] = [];
  for (const name of ['tools', 'functions'] as const) {
    const list = body[name];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) throw invalid(name, 'expected an array');
    list.forEach((t, i) => {
      const at = `${name}[${i}]`;
      if (!isObj(t)) throw invalid(at, 'expected a tool object');
      if (name === 'functions') out.push(functionTool(t, at));
      else if (t.type === 'function')
        out.push(isObj(t.function) ? functionTool(t.function, `${at}.function`) : functionTool(t, at));
      else if (t.type === 'custom') {
        const c = isObj(t.custom) ? t.custom : t;
        if (typeof c.name !== 'string' || !c.name) throw invalid(`${at}.custom.name`, 'expected a tool name');
        const description = typeof c.description === 'string' ? { description: c.description } : {};
        out.push({ name: c.name, ...description, parameters: CUSTOM_TOOL_PARAMETERS, custom: true });
      } else throw invalid(`${at}.type`, "expected 'function' or 'custom'");
    });
  }
  return out;
}

const MODES = new Set(['none', 'auto', 'required']);

/** A named choice `{type:"function",function:{name}}` / `{type:"custom",custom:{name}}`, or a legacy `{name}`. */
function namedChoice(v: Obj, at: string): HubToolChoice {
  const inner = v.type === 'function' ? v.function : v.type === 'custom' ? v.custom : v;
  if (!isObj(inner) || typeof inner.name !== 'string' || !inner.name)
    throw invalid(at, 'expected none, auto, required or a named tool');
  return { type: 'tool', name: inner.name };
}

/**
 * `tool_choice`, or the legacy `function_call`. An allowed_tools choice keeps its mode only: the hub has no
 * allow-list, so every declared tool stays callable.
 */
export function decodeToolChoice(body: Obj): HubToolChoice | undefined {
  const name = body.tool_choice !== undefined && body.tool_choice !== null ? 'tool_choice' : 'function_call';
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    if (!MODES.has(v)) throw invalid(name, "expected 'none', 'auto' or 'required'");
    return { type: v as 'none' | 'auto' | 'required' };
  }
  if (!isObj(v)) throw invalid(name, 'expected a string or an object');
  if (v.type === 'allowed_tools') {
    const mode = isObj(v.allowed_tools) ? v.allowed_tools.mode : undefined;
    return { type: mode === 'required' ? 'required' : 'auto' };
  }
  return namedChoice(v, name);
}
