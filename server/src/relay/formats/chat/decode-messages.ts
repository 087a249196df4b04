import { badRequest } from '../../relay-error.ts';
import { unpackCallId } from '../common.ts';
import type { HubMessage, HubPart, HubText, HubToolCall, HubToolResult } from '../hub.ts';
import { invalid, isObj, type Obj } from './check.ts';
import { textContent, userContent } from './content.ts';

/**
 * A chat `messages` array as the hub's system texts and turns. Tool (and legacy function) messages become
 * tool_result parts of a user turn, named after the assistant call they answer; a user message right after
 * them joins that turn, so the turn reads as Anthropic's: results first, then the user's text.
 */
export function decodeMessages(raw: unknown): { system: HubText[]; messages: HubMessage[] } {
  if (!Array.isArray(raw) || raw.length === 0)
    throw badRequest("'messages' must be a non-empty array.", 'invalid_value', 'messages');
  const system: HubText[] = [];
  const messages: HubMessage[] = [];
  const calls = new Map<string, string>(); // call id -> function name
  const legacyCalls: Array<{ id: string; name: string }> = []; // function_call turns not yet answered

  raw.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObj(m)) throw invalid(at, 'expected a message object');
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...textContent(m.content, `${at}.content`));
        break;
      case 'user':
        if (m.content === undefined || m.content === null)
          throw badRequest(`Missing required parameter: '${at}.content'.`, 'missing_required_parameter');
        userTurn(messages).parts.push(...userContent(m.content, `${at}.content`));
        break;
      case 'assistant':
        messages.push(assistantTurn(m, at, calls, legacyCalls));
        break;
      case 'tool': {
        const id = m.tool_call_id;
        if (typeof id !== 'string' || !id)
          throw badRequest(`Missing required parameter: '${at}.tool_call_id'.`, 'missing_required_parameter');
        const name = calls.get(id);
        if (name === undefined)
          throw badRequest(
            `Invalid parameter: '${at}.tool_call_id' ${JSON.stringify(id)} does not answer any earlier assistant tool call.`,
            'invalid_tool_call_id',
            `${at}.tool_call_id`,
          );
        userTurn(messages).parts.push(toolResult(id, name, m.content, `${at}.content`));
        break;
      }
      case 'function': {
        const at2 = legacyCalls.findIndex((c) => c.name === m.name);
        if (at2 < 0)
          throw badRequest(
            `Invalid parameter: '${at}.name' does not answer any earlier assistant function_call.`,
            'invalid_value',
            `${at}.name`,
          );
        const [call] = legacyCalls.splice(at2, 1);
        userTurn(messages).parts.push(toolResult(call.id, call.name, m.content, `${at}.content`));
        break;
      }
      default:
        throw invalid(`${at}.role`, "expected one of 'system', 'developer', 'user', 'assistant', 'tool'");
    }
  });
  return { system, messages };
}

/** The user turn to add parts to: the tool-result turn just before (results come first), else a new one. */
function userTurn(messages: HubMessage[]): HubMessage {
  const last = messages.at(-1);
  if (last?.role === 'user' && last.parts.length > 0 && last.parts.every((p) => p.type === 'tool_result'))
    return last;
  const turn: HubMessage = { role: 'user', parts: [] };
  messages.push(turn);
  return turn;
}

function toolResult(callId: string, name: string, content: unknown, at: string): HubToolResult {
  return { type: 'tool_result', callId, name, content: textContent(content, at) };
}

/** Function arguments as JSON text; some clients send them as an object. */
function argsText(v: unknown, at: string): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  if (isObj(v)) return JSON.stringify(v);
  throw invalid(at, 'expected a JSON string');
}

function assistantTurn(
  m: Obj,
  at: string,
  calls: Map<string, string>,
  legacyCalls: Array<{ id: string; name: string }>,
): HubMessage {
  const parts: HubPart[] = [];
  // Thinking text as DeepSeek and xAI return it (reasoning_content), or as OpenRouter and vLLM do (reasoning).
  const thinking = [m.reasoning_content, m.reasoning].find((r) => typeof r === 'string' && r);
  if (typeof thinking === 'string') parts.push({ type: 'thinking', text: thinking });
  parts.push(...textContent(m.content, `${at}.content`, true));
  for (const p of Array.isArray(m.content) ? m.content : [])
    if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string' && p.refusal)
      parts.push({ type: 'refusal', text: p.refusal });
  if (typeof m.refusal === 'string' && m.refusal) parts.push({ type: 'refusal', text: m.refusal });

  const toolCalls = m.tool_calls ?? [];
  if (!Array.isArray(toolCalls)) throw invalid(`${at}.tool_calls`, 'expected an array');
  toolCalls.forEach((tc, j) => {
    const call = toolCall(tc, `${at}.tool_calls[${j}]`);
    calls.set(call.id, call.name);
    parts.push(call);
  });
  const fc = m.function_call;
  if (isObj(fc)) {
    if (typeof fc.name !== 'string' || !fc.name)
      throw invalid(`${at}.function_call.name`, 'expected a string');
    const id = `call_legacy_${at.replace(/\D/g, '')}`;
    legacyCalls.push({ id, name: fc.name });
    calls.set(id, fc.name);
    parts.push({
      type: 'tool_call',
      id,
      name: fc.name,
      args: argsText(fc.arguments, `${at}.function_call.arguments`),
    });
  }
  if (isObj(m.audio)) parts.push({ type: 'opaque', format: 'openai', value: { audio: m.audio } });
  if (parts.length === 0 && (m.content === undefined || m.content === null))
    throw badRequest(
      `Invalid value for '${at}.content': an assistant message needs content, tool_calls or function_call.`,
      'invalid_value',
      `${at}.content`,
    );
  return { role: 'assistant', parts };
}

/**
 * One assistant tool call. An id made by packCallId stays whole (the client echoes it in tool messages),
 * and the Gemini signature inside it is also put where the hub carries signatures.
 */
function toolCall(tc: unknown, at: string): HubToolCall {
  if (!isObj(tc)) throw invalid(at, 'expected a tool call object');
  if (typeof tc.id !== 'string' || !tc.id)
    throw badRequest(`Missing required parameter: '${at}.id'.`, 'missing_required_parameter', `${at}.id`);
  const { signature } = unpackCallId(tc.id);
  const sig = signature ? { signature, signatureFormat: 'gemini' as const } : {};
  if (tc.type === 'custom') {
    const c = tc.custom;
    if (!isObj(c) || typeof c.name !== 'string' || !c.name)
      throw invalid(`${at}.custom.name`, 'expected a string');
    const input = typeof c.input === 'string' ? c.input : '';
    return {
      type: 'tool_call',
      id: tc.id,
      name: c.name,
      args: JSON.stringify({ input }),
      custom: true,
      ...sig,
    };
  }
  if (tc.type !== undefined && tc.type !== 'function')
    throw invalid(`${at}.type`, "expected 'function' or 'custom'");
  const fn = tc.function;
  if (!isObj(fn) || typeof fn.name !== 'string' || !fn.name)
    throw badRequest(
      `Missing required parameter: '${at}.function.name'.`,
      'missing_required_parameter',
      `${at}.function.name`,
    );
  return {
    type: 'tool_call',
    id: tc.id,
    name: fn.name,
    args: argsText(fn.arguments, `${at}.function.arguments`),
    ...sig,
  };
}
