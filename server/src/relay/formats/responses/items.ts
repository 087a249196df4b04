import { isObj, type Obj } from '../chat/check.ts';
import { clientCallId, customInput } from '../chat/response.ts';
import { newId } from '../common.ts';
import type { HubPart, HubThinking, HubToolCall } from '../hub.ts';

/** Response output items and hub parts, both ways (shared by whole answers and the stream's final output). */

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The text of a reasoning item: its summary parts (blank line between), else its reasoning_text content. */
export function reasoningText(item: Obj): string {
  const texts = (list: unknown) =>
    Array.isArray(list)
      ? list.flatMap((p) => (isObj(p) && typeof p.text === 'string' && p.text ? [p.text] : []))
      : [];
  const summary = texts(item.summary);
  return (summary.length ? summary : texts(item.content)).join('\n\n');
}

/** A reasoning item as hub thinking; its encrypted_content is the signature only Responses can verify. */
export function thinkingOf(item: Obj): HubThinking | null {
  const text = reasoningText(item);
  const enc = str(item.encrypted_content);
  if (!text && !enc) return null;
  return {
    type: 'thinking',
    text,
    ...(enc ? { signature: enc, signatureFormat: 'responses' as const } : {}),
    ...(typeof item.id === 'string' && item.id ? { itemId: item.id } : {}),
  };
}

/** The arguments of a custom (freeform) call in the hub: `{"input": "<raw text>"}`. */
export const customArgs = (input: string) => JSON.stringify({ input });

/** One output item as hub parts: messages give text and refusals, unknown items travel as opaque. */
export function partsOfItem(item: unknown): HubPart[] {
  if (!isObj(item)) return [];
  switch (item.type) {
    case 'message': {
      const out: HubPart[] = [];
      for (const c of Array.isArray(item.content) ? item.content : []) {
        if (!isObj(c)) continue;
        if (c.type === 'output_text' && str(c.text)) out.push({ type: 'text', text: str(c.text) });
        else if (c.type === 'refusal' && str(c.refusal)) out.push({ type: 'refusal', text: str(c.refusal) });
      }
      return out;
    }
    case 'reasoning': {
      const t = thinkingOf(item);
      return t ? [t] : [];
    }
    case 'function_call':
      return [
        {
          type: 'tool_call',
          id: str(item.call_id) || newId('call_'),
          name: str(item.name),
          args: str(item.arguments),
        },
      ];
    case 'custom_tool_call':
      return [
        {
          type: 'tool_call',
          id: str(item.call_id) || newId('call_'),
          name: str(item.name),
          args: customArgs(str(item.input)),
          custom: true,
        },
      ];
    default:
      // image_generation_call, web_search_call, file_search_call and whatever comes next.
      return [{ type: 'opaque', format: 'responses', value: item }];
  }
}

export type OutputItem = Record<string, unknown> & { id: string; type: string };

/** Fresh item ids with OpenAI's prefixes. */
export const itemId = {
  message: () => newId('msg_'),
  reasoning: () => newId('rs_'),
  call: () => newId('fc_'),
  custom: () => newId('ctc_'),
};

/**
 * A reasoning item for hub thinking; encrypted_content only when it is Responses' own or the gateway's
 * envelope of another upstream's artifact (both tagged 'responses').
 */
export function reasoningItem(
  t: Pick<HubThinking, 'text' | 'signature' | 'signatureFormat' | 'itemId'>,
  id?: string,
) {
  const own = t.signatureFormat === 'responses';
  return {
    id: id ?? (own && t.itemId ? t.itemId : itemId.reasoning()),
    type: 'reasoning',
    summary: t.text ? [{ type: 'summary_text', text: t.text }] : [],
    ...(own && t.signature ? { encrypted_content: t.signature } : {}),
  };
}

/** A function_call or custom_tool_call item; a Gemini signature rides in call_id (clients echo it back). */
export function callItem(c: HubToolCall, id?: string): OutputItem {
  const call_id = clientCallId(c);
  return c.custom
    ? {
        id: id ?? itemId.custom(),
        type: 'custom_tool_call',
        status: 'completed',
        call_id,
        name: c.name,
        input: customInput(c.args),
      }
    : {
        id: id ?? itemId.call(),
        type: 'function_call',
        status: 'completed',
        call_id,
        name: c.name,
        arguments: c.args || '{}',
      };
}

/**
 * Hub answer parts as output items: neighbouring text and refusal parts share one message, thinking becomes
 * reasoning items (another upstream's signed or redacted thinking arrives here already sealed into an
 * envelope signature of this format, see envelope/), Responses' own opaque items go back unchanged. Calls of
 * the request's custom tools (`customTools`) are custom_tool_call items even when the upstream made them
 * function calls with `{"input": ...}`.
 */
export function outputItems(
  parts: HubPart[],
  messageStatus = 'completed',
  customTools: readonly string[] = [],
): OutputItem[] {
  const out: OutputItem[] = [];
  let msg: (OutputItem & { content: unknown[] }) | null = null;
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') {
      if (!msg) {
        msg = {
          id: itemId.message(),
          type: 'message',
          status: messageStatus,
          role: 'assistant',
          content: [],
        };
        out.push(msg);
      }
      msg.content.push(
        p.type === 'text'
          ? { type: 'output_text', text: p.text, annotations: [], logprobs: [] }
          : { type: 'refusal', refusal: p.text },
      );
      continue;
    }
    msg = null;
    if (p.type === 'thinking' && !p.redacted) out.push(reasoningItem(p));
    else if (p.type === 'tool_call')
      out.push(callItem(p.custom || !customTools.includes(p.name) ? p : { ...p, custom: true }));
    else if (
      p.type === 'opaque' &&
      p.format === 'responses' &&
      isObj(p.value) &&
      typeof p.value.type === 'string'
    )
      out.push({
        ...p.value,
        id: typeof p.value.id === 'string' ? p.value.id : newId('item_'),
      } as OutputItem);
  }
  return out;
}
