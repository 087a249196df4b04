import { badRequest } from '../../relay-error.ts';
import { dataUrl } from '../common.ts';
import type { HubFile, HubImage, HubMessage, HubPart, HubText } from '../hub.ts';
import { isObj } from './check.ts';

/**
 * Hub turns as chat messages for an OpenAI-compatible upstream. Cache marks are dropped (OpenAI caches
 * by itself; unknown fields make strict servers refuse the body), and so is thinking: OpenAI refuses
 * `reasoning_content` in history and DeepSeek's reasoner answers 400 to it, while servers that would use it
 * work without it. Signatures of other formats have nowhere to go.
 */
export function encodeMessages(system: HubText[], messages: HubMessage[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  // One system message: several, or one after the first turn, break some servers' chat templates.
  const sys = joinTexts(system);
  if (sys) out.push({ role: 'system', content: sys });
  for (const m of messages) {
    if (m.role === 'user') out.push(...userMessages(m.parts));
    else {
      // A turn of thinking only is empty here; Mistral and others refuse an empty assistant message.
      const msg = assistantMessage(m.parts);
      if (msg.content || Object.keys(msg).length > 2) out.push(msg);
    }
  }
  return out;
}

const joinTexts = (parts: HubPart[]) =>
  parts
    .filter((p): p is HubText => p.type === 'text')
    .map((p) => p.text)
    .join('\n');

/**
 * A user turn: its tool results as `tool` messages first (one per call, in order), then one user message
 * with the images those results carried (tool messages take text only) and the turn's own content.
 */
function userMessages(parts: HubPart[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const content: Record<string, unknown>[] = [];
  for (const p of parts) {
    if (p.type === 'tool_result') {
      out.push({ role: 'tool', tool_call_id: p.callId, content: joinTexts(p.content) });
      for (const c of p.content) if (c.type === 'image') content.push(imagePart(c));
    }
  }
  for (const p of parts) {
    if (p.type === 'text') content.push({ type: 'text', text: p.text });
    else if (p.type === 'image') content.push(imagePart(p));
    else if (p.type === 'file') content.push(filePart(p));
    else if (p.type === 'opaque' && p.format === 'openai' && isObj(p.value)) content.push(p.value);
  }
  if (content.length === 0) return out;
  // Text alone goes as a string: several OpenAI-compatible servers take no content arrays.
  const textOnly = content.every((c) => c.type === 'text');
  out.push({
    role: 'user',
    content: textOnly ? content.map((c) => c.text).join('\n') : content,
  });
  return out;
}

const imagePart = (img: HubImage) => ({
  type: 'image_url',
  image_url: { url: img.url ?? dataUrl(img), ...(img.detail ? { detail: img.detail } : {}) },
});

const AUDIO_FORMATS: Record<string, string> = { 'audio/wav': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

/** A file: audio as input_audio, an image as image_url, anything else inline as a file part. */
function filePart(f: HubFile): Record<string, unknown> {
  const mediaType = f.mediaType ?? 'application/pdf';
  if (mediaType.startsWith('image/'))
    return imagePart({ type: 'image', url: f.url, data: f.data, mediaType });
  if (!f.data)
    throw badRequest(
      'file URLs cannot be sent to an OpenAI chat upstream; send the file inline',
      'invalid_value',
    );
  const format = AUDIO_FORMATS[mediaType];
  if (format) return { type: 'input_audio', input_audio: { data: f.data, format } };
  return {
    type: 'file',
    file: {
      file_data: `data:${mediaType};base64,${f.data}`,
      ...(f.filename ? { filename: f.filename } : {}),
    },
  };
}

/** An assistant turn: text as content, refusal, and tool calls with their arguments as JSON text. */
function assistantMessage(parts: HubPart[]): Record<string, unknown> {
  const msg: Record<string, unknown> = { role: 'assistant' };
  const toolCalls = parts.flatMap((p) =>
    p.type === 'tool_call'
      ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: p.args.trim() ? p.args : '{}' } }]
      : [],
  );
  const text = joinTexts(parts);
  msg.content = text || (toolCalls.length ? null : '');
  const refusal = parts.flatMap((p) => (p.type === 'refusal' ? [p.text] : [])).join('\n');
  if (refusal) msg.refusal = refusal;
  if (toolCalls.length) msg.tool_calls = toolCalls;
  for (const p of parts)
    if (p.type === 'opaque' && p.format === 'openai' && isObj(p.value) && isObj(p.value.audio))
      msg.audio = p.value.audio;
  return msg;
}
