import { badRequest } from '../../relay-error.ts';
import { invalid, isObj, type Obj } from '../chat/check.ts';
import { unpackCallId } from '../common.ts';
import type { HubImage, HubMessage, HubText, HubThinking, HubToolCall } from '../hub.ts';
import { assistantContent, inputContent, textContent } from './decode-content.ts';
import { customArgs, thinkingOf } from './items.ts';

/**
 * A Responses `input` (a string, or a list of items) as the hub's system texts and turns. Assistant-side
 * items (assistant messages, reasoning, function and custom tool calls, other output items) in a row make
 * one assistant turn; tool outputs and user messages make user turns, results first, as in Anthropic's
 * Messages. Items the hub has no part for travel as opaque Responses items.
 *
 * `lenient` (a previous_response_id or item references hold earlier items): tool outputs may answer calls
 * that are not in this input.
 */
export function decodeInput(raw: unknown, lenient: boolean): { system: HubText[]; messages: HubMessage[] } {
  const system: HubText[] = [];
  const messages: HubMessage[] = [];
  if (raw === undefined || raw === null) return { system, messages };
  if (typeof raw === 'string') {
    if (raw) messages.push({ role: 'user', parts: [{ type: 'text', text: raw }] });
    return { system, messages };
  }
  if (!Array.isArray(raw)) throw invalid('input', 'expected a string or an array of input items');
  const calls = new Map<string, string>(); // call_id -> tool name

  const turn = (role: 'user' | 'assistant'): HubMessage => {
    const last = messages.at(-1);
    if (role === 'assistant' && last?.role === 'assistant') return last;
    // A user turn continues one made of tool results only (results first, then the user's content).
    if (role === 'user' && last?.role === 'user' && last.parts.every((p) => p.type === 'tool_result'))
      return last;
    const t: HubMessage = { role, parts: [] };
    messages.push(t);
    return t;
  };

  raw.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObj(item)) throw invalid(at, 'expected an input item object');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (typeof type !== 'string') throw invalid(`${at}.type`, 'expected an input item type');
    switch (type) {
      case 'message':
        message(item, at, system, turn);
        break;
      case 'function_call':
      case 'custom_tool_call': {
        const call = toolCall(item, at, type === 'custom_tool_call');
        calls.set(call.id, call.name);
        turn('assistant').parts.push(call);
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const callId = item.call_id;
        if (typeof callId !== 'string' || !callId)
          throw badRequest(
            `Missing required parameter: '${at}.call_id'.`,
            'missing_required_parameter',
            `${at}.call_id`,
          );
        const name = calls.get(callId);
        if (name === undefined && !lenient)
          throw badRequest(
            `No tool call found for ${type} with call_id ${JSON.stringify(callId)} (${at}): the input has no earlier ${type === 'custom_tool_call_output' ? 'custom_tool_call' : 'function_call'} with that call_id.`,
            'invalid_value',
            `${at}.call_id`,
          );
        const output = item.output;
        if (output === undefined || output === null)
          throw badRequest(
            `Missing required parameter: '${at}.output'.`,
            'missing_required_parameter',
            `${at}.output`,
          );
        const parts = inputContent(output, `${at}.output`);
        const content = parts.filter((p): p is HubText | HubImage => p.type === 'text' || p.type === 'image');
        const t = turn('user');
        t.parts.push({
          type: 'tool_result',
          callId,
          ...(name !== undefined ? { name } : {}),
          content,
          ...(type === 'custom_tool_call_output' ? { custom: true } : {}),
        });
        // Files a tool returned have no place in a hub tool result: they follow it in the same turn.
        t.parts.push(...parts.filter((p) => p.type !== 'text' && p.type !== 'image'));
        break;
      }
      case 'reasoning': {
        const part = reasoning(item, at);
        if (part) turn('assistant').parts.push(part);
        break;
      }
      default:
        // item_reference, web_search_call, computer_call_output, compaction ...: only Responses can use them.
        turn(/_output$|_response$/.test(type) ? 'user' : 'assistant').parts.push({
          type: 'opaque',
          format: 'responses',
          value: item,
        });
    }
  });
  return { system, messages };
}

function message(m: Obj, at: string, system: HubText[], turn: (role: 'user' | 'assistant') => HubMessage) {
  if (m.content === undefined || m.content === null)
    throw badRequest(
      `Missing required parameter: '${at}.content'.`,
      'missing_required_parameter',
      `${at}.content`,
    );
  switch (m.role) {
    case 'system':
    case 'developer':
      system.push(...textContent(m.content, `${at}.content`));
      return;
    case 'user': {
      const parts = inputContent(m.content, `${at}.content`);
      if (parts.length) turn('user').parts.push(...parts);
      return;
    }
    case 'assistant': {
      const parts = assistantContent(m.content, `${at}.content`);
      if (parts.length) turn('assistant').parts.push(...parts);
      return;
    }
    default:
      throw invalid(`${at}.role`, "expected one of 'user', 'assistant', 'system', 'developer'");
  }
}

/**
 * A function_call or custom_tool_call item. A call_id made by packCallId stays whole (the client echoes it
 * in the output item), and the Gemini signature inside it is also put where the hub carries signatures.
 */
function toolCall(item: Obj, at: string, custom: boolean): HubToolCall {
  const id = item.call_id;
  if (typeof id !== 'string' || !id)
    throw badRequest(
      `Missing required parameter: '${at}.call_id'.`,
      'missing_required_parameter',
      `${at}.call_id`,
    );
  if (typeof item.name !== 'string' || !item.name)
    throw badRequest(`Missing required parameter: '${at}.name'.`, 'missing_required_parameter', `${at}.name`);
  const { signature } = unpackCallId(id);
  const sig = signature ? { signature, signatureFormat: 'gemini' as const } : {};
  if (custom) {
    if (item.input !== undefined && typeof item.input !== 'string')
      throw invalid(`${at}.input`, 'expected a string');
    return {
      type: 'tool_call',
      id,
      name: item.name,
      args: customArgs(item.input ?? ''),
      custom: true,
      ...sig,
    };
  }
  const a = item.arguments;
  let args: string;
  if (typeof a === 'string') args = a;
  else if (a === undefined || a === null) args = '';
  else if (isObj(a)) args = JSON.stringify(a);
  else throw invalid(`${at}.arguments`, 'expected a JSON string');
  return { type: 'tool_call', id, name: item.name, args, ...sig };
}

/**
 * A reasoning item as hub thinking: its summary (or reasoning_text content) as text, encrypted_content as a
 * signature only Responses can verify, its id kept for replay. An item with neither text nor encrypted
 * content carries nothing any upstream can use.
 */
function reasoning(item: Obj, at: string): HubThinking | null {
  if (item.summary !== undefined && item.summary !== null && !Array.isArray(item.summary))
    throw invalid(`${at}.summary`, 'expected an array of summary_text parts');
  if (
    item.encrypted_content !== undefined &&
    item.encrypted_content !== null &&
    typeof item.encrypted_content !== 'string'
  )
    throw invalid(`${at}.encrypted_content`, 'expected a string');
  return thinkingOf(item);
}
