import { badRequest } from '../../relay-error.ts';
import { isObj } from '../chat/check.ts';
import { customInput } from '../chat/response.ts';
import { dataUrl } from '../common.ts';
import type { HubFile, HubImage, HubMessage, HubPart, HubText } from '../hub.ts';

type Item = Record<string, unknown>;

/**
 * Hub turns as Responses input items, in order. User turns: tool results as function_call_output /
 * custom_tool_call_output items, other content as user messages. Assistant turns: reasoning items (only
 * those Responses made: encrypted_content, id and summary replayed unchanged; others' thinking and
 * signatures cannot be verified there and are dropped), messages with output_text and refusal parts, calls
 * without item ids (an fc_ id would have to come with its reasoning item). Cache marks are dropped.
 */
export function encodeInput(messages: HubMessage[]): Item[] {
  const out: Item[] = [];
  for (const m of messages) out.push(...(m.role === 'user' ? userItems(m.parts) : assistantItems(m.parts)));
  return out;
}

const imagePart = (img: HubImage): Item => ({
  type: 'input_image',
  image_url: img.url ?? dataUrl(img),
  detail: img.detail ?? 'auto',
});

function filePart(f: HubFile): Item {
  const mediaType = f.mediaType ?? 'application/pdf';
  if (mediaType.startsWith('image/'))
    return imagePart({ type: 'image', url: f.url, data: f.data, mediaType });
  if (mediaType.startsWith('audio/'))
    throw badRequest('audio input cannot be sent to a Responses upstream', 'invalid_value');
  const filename = f.filename ? { filename: f.filename } : {};
  if (f.data) return { type: 'input_file', file_data: `data:${mediaType};base64,${f.data}`, ...filename };
  return { type: 'input_file', file_url: f.url ?? '', ...filename };
}

const isContentPart = (v: unknown): v is Item =>
  isObj(v) && typeof v.type === 'string' && v.type.startsWith('input_');

function toolOutput(content: Array<HubText | HubImage>): string | Item[] {
  if (content.every((c) => c.type === 'text')) return content.map((c) => (c as HubText).text).join('\n');
  return content.map((c) => (c.type === 'text' ? { type: 'input_text', text: c.text } : imagePart(c)));
}

function userItems(parts: HubPart[]): Item[] {
  const out: Item[] = [];
  let content: Item[] | null = null;
  const push = (c: Item) => {
    if (!content) {
      content = [];
      out.push({ role: 'user', content });
    }
    content.push(c);
  };
  for (const p of parts) {
    if (p.type === 'tool_result') {
      content = null;
      out.push({
        type: p.custom ? 'custom_tool_call_output' : 'function_call_output',
        call_id: p.callId,
        output: toolOutput(p.content),
      });
    } else if (p.type === 'text') push({ type: 'input_text', text: p.text });
    else if (p.type === 'image') push(imagePart(p));
    else if (p.type === 'file') push(filePart(p));
    else if (p.type === 'opaque' && p.format === 'responses') {
      if (isContentPart(p.value)) push(p.value);
      else if (isObj(p.value)) {
        content = null;
        out.push(p.value);
      }
    }
  }
  return out;
}

function assistantItems(parts: HubPart[]): Item[] {
  const out: Item[] = [];
  let content: Item[] | null = null;
  for (const p of parts) {
    if (p.type === 'text' || p.type === 'refusal') {
      if (!content) {
        content = [];
        out.push({ type: 'message', role: 'assistant', content });
      }
      content.push(
        p.type === 'text' ? { type: 'output_text', text: p.text } : { type: 'refusal', refusal: p.text },
      );
      continue;
    }
    content = null;
    if (p.type === 'thinking') {
      if (p.signatureFormat !== 'responses' || !p.signature || p.redacted) continue;
      out.push({
        type: 'reasoning',
        ...(p.itemId ? { id: p.itemId } : {}),
        summary: p.text ? [{ type: 'summary_text', text: p.text }] : [],
        encrypted_content: p.signature,
      });
    } else if (p.type === 'tool_call')
      out.push(
        p.custom
          ? { type: 'custom_tool_call', call_id: p.id, name: p.name, input: customInput(p.args) }
          : { type: 'function_call', call_id: p.id, name: p.name, arguments: p.args.trim() ? p.args : '{}' },
      );
    else if (p.type === 'opaque' && p.format === 'responses' && isObj(p.value)) out.push(p.value);
  }
  // OpenAI refuses a reasoning item without the item it led to; a turn ending in reasoning loses it.
  while (out.at(-1)?.type === 'reasoning') out.pop();
  return out;
}
