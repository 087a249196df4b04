import { argsObject, parseJsonOrNull, unpackCallId } from '../common.ts';
import type { HubFile, HubImage, HubMessage, HubPart, HubText, HubToolResult } from '../hub.ts';
import { isObj, type Obj } from './check.ts';

/**
 * Google's documented stand-in signature for function calls that come from another model's conversation:
 * Gemini 3 refuses history whose first function call of a step has no thoughtSignature.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/**
 * Hub turns as Gemini `contents` for a Gemini upstream. Roles alternate (consecutive turns of one role are
 * merged); tool results become functionResponse parts first in their user turn, named after the call they
 * answer, with the images they carried as inline parts after them (Gemini before 3 takes no images inside a
 * functionResponse). Thinking is replayed only with a Gemini signature (as a thought part, or put back on
 * the text part it came with); tool calls get their signature back from the hub or from a packed id, and on
 * Gemini 3 the first call of a model turn without one gets Google's stand-in. Ids go on functionCall and
 * functionResponse unpacked; other formats' opaque parts are dropped.
 */
export function encodeContents(messages: HubMessage[], model: string): Obj[] {
  const names = new Map<string, string>(); // call id (as the hub has it, and unpacked) -> function name
  const out: Obj[] = [];
  const gemini3 = /gemini-3/i.test(model);
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'model' : 'user';
    const parts = role === 'model' ? modelParts(m.parts, names) : userParts(m.parts, names);
    if (parts.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) (last.parts as Obj[]).push(...parts);
    else out.push({ role, parts });
  }
  if (gemini3)
    for (const c of out) {
      if (c.role !== 'model') continue;
      const first = (c.parts as Obj[]).find((p) => p.functionCall);
      if (first && !first.thoughtSignature) first.thoughtSignature = SKIP_SIGNATURE;
    }
  return out;
}

export const textParts = (system: HubText[]): Obj[] =>
  system.filter((t) => t.text).map((t) => ({ text: t.text }));

const EXT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

/** The media type of a file URL, from its extension. */
function typeOfUrl(url: string, fallback: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return EXT_TYPES[ext] ?? fallback;
}

/** An image or file as inlineData (bytes) or fileData (a URL, with the media type Gemini needs). */
export function mediaPart(p: HubImage | HubFile): Obj {
  const fallback = p.type === 'image' ? 'image/jpeg' : 'application/pdf';
  if (p.data) return { inlineData: { mimeType: p.mediaType ?? fallback, data: p.data } };
  const url = p.url ?? '';
  return { fileData: { mimeType: p.mediaType ?? typeOfUrl(url, fallback), fileUri: url } };
}

function userParts(parts: HubPart[], names: Map<string, string>): Obj[] {
  const responses: Obj[] = [];
  const media: Obj[] = [];
  const rest: Obj[] = [];
  for (const p of parts) {
    if (p.type === 'tool_result') {
      responses.push(functionResponse(p, names));
      for (const c of p.content) if (c.type === 'image') media.push(mediaPart(c));
    } else if (p.type === 'text') {
      if (p.text) rest.push({ text: p.text });
    } else if (p.type === 'image' || p.type === 'file') rest.push(mediaPart(p));
    else if (p.type === 'opaque' && p.format === 'gemini' && isObj(p.value)) rest.push(p.value);
  }
  return [...responses, ...media, ...rest];
}

/**
 * A tool result as a functionResponse. Its response is an object: the result's text when it is a JSON
 * object, else `{result: text}` (`{error: text}` for an error result).
 */
function functionResponse(p: HubToolResult, names: Map<string, string>): Obj {
  const { id } = unpackCallId(p.callId);
  const name = p.name || names.get(p.callId) || names.get(id) || id;
  const text = p.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  const parsed = parseJsonOrNull(text);
  const response = isObj(parsed) ? parsed : p.isError ? { error: text } : { result: text };
  return { functionResponse: { id, name, response } };
}

/**
 * A model turn's parts. For a Gemini upstream (history) thinking goes back only with a Gemini signature; for
 * a Gemini client (`forClient`, an answer) thinking text is shown as thought parts whoever made it, and only a
 * Gemini signature goes with it.
 */
export function modelParts(parts: HubPart[], names: Map<string, string>, forClient = false): Obj[] {
  const out: Obj[] = [];
  for (const p of parts) {
    switch (p.type) {
      case 'text':
      case 'refusal':
        if (p.text) out.push({ text: p.text });
        break;
      case 'thinking': {
        const signature = p.signatureFormat === 'gemini' && p.signature ? p.signature : undefined;
        // Gemini cannot verify other formats' thinking: as history it is dropped.
        if (!signature && (!forClient || !p.text)) break;
        if (p.text) {
          out.push({ text: p.text, thought: true, ...(signature ? { thoughtSignature: signature } : {}) });
          break;
        }
        // A signature that came on a text or media part goes back on it.
        const prev = out.at(-1);
        if (prev && !prev.thoughtSignature && !prev.thought && !prev.functionCall)
          prev.thoughtSignature = signature;
        else out.push({ text: '', thoughtSignature: signature });
        break;
      }
      case 'tool_call': {
        const { id, signature: packed } = unpackCallId(p.id);
        const signature = p.signatureFormat === 'gemini' && p.signature ? p.signature : packed;
        names.set(p.id, p.name);
        names.set(id, p.name);
        out.push({
          functionCall: { id, name: p.name, args: argsObject(p.args) },
          ...(signature ? { thoughtSignature: signature } : {}),
        });
        break;
      }
      case 'image':
      case 'file':
        out.push(mediaPart(p));
        break;
      case 'opaque':
        if (p.format === 'gemini' && isObj(p.value)) out.push(p.value);
        break;
      default:
        break;
    }
  }
  return out;
}
