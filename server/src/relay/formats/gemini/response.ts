import { RelayError } from '../../relay-error.ts';
import { imageMediaType, newId, notAnAnswer } from '../common.ts';
import type { CodecContext, HubPart, HubResponse } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { modelParts } from './encode-contents.ts';
import { errorOf } from './errors.ts';
import { blockReason, finishReason, hubStop } from './stop.ts';
import { decodeUsage, encodeUsage } from './usage.ts';

/** A Gemini answer's id: responseId, else a fresh one. */
export const answerId = (body: Obj) =>
  typeof body.responseId === 'string' && body.responseId ? body.responseId : newId('gen-');

export const answerModel = (body: Obj, ctx: CodecContext) =>
  typeof body.modelVersion === 'string' && body.modelVersion ? body.modelVersion : ctx.model;

/** Vertex's createTime as Unix seconds. */
export function answerCreated(body: Obj): number | undefined {
  const t = typeof body.createTime === 'string' ? Date.parse(body.createTime) : Number.NaN;
  return Number.isFinite(t) ? Math.floor(t / 1000) : undefined;
}

/** The first candidate (the hub carries one answer). */
export function firstCandidate(body: Obj): Obj | undefined {
  const list = Array.isArray(body.candidates) ? body.candidates : [];
  const c = list.find((x) => isObj(x) && (x.index === undefined || x.index === 0));
  return isObj(c) ? c : undefined;
}

export const partsOf = (candidate: Obj | undefined): unknown[] => {
  const content = candidate && isObj(candidate.content) ? candidate.content : {};
  return Array.isArray(content.parts) ? content.parts : [];
};

/**
 * One part of an answer as hub parts: thought text as thinking, text, a function call (with its signature,
 * and a fresh id when Gemini gave none), generated media; a signature on a text or media part (or alone)
 * becomes an empty thinking part after it. Code execution parts are Gemini opaque parts.
 */
export function answerPart(p: unknown): HubPart[] {
  if (!isObj(p)) return [];
  const sig = typeof p.thoughtSignature === 'string' && p.thoughtSignature ? p.thoughtSignature : undefined;
  const signed = (text: string): HubPart => ({
    type: 'thinking',
    text,
    ...(sig ? { signature: sig, signatureFormat: 'gemini' as const } : {}),
  });
  const after = sig ? [signed('')] : [];
  if (typeof p.text === 'string') {
    if (p.thought === true) return p.text || sig ? [signed(p.text)] : [];
    return [...(p.text ? [{ type: 'text' as const, text: p.text }] : []), ...after];
  }
  if (isObj(p.functionCall)) {
    const fc = p.functionCall;
    return [
      {
        type: 'tool_call',
        id: typeof fc.id === 'string' && fc.id ? fc.id : newId('call_'),
        name: typeof fc.name === 'string' ? fc.name : '',
        args: JSON.stringify(isObj(fc.args) ? fc.args : {}),
        ...(sig ? { signature: sig, signatureFormat: 'gemini' as const } : {}),
      },
    ];
  }
  if (isObj(p.inlineData) && typeof p.inlineData.data === 'string') {
    const mime = typeof p.inlineData.mimeType === 'string' ? p.inlineData.mimeType : '';
    const data = p.inlineData.data;
    const media: HubPart = mime.startsWith('image/')
      ? { type: 'image', data, mediaType: imageMediaType(data, mime) }
      : { type: 'file', data, mediaType: mime || 'application/octet-stream' };
    return [media, ...after];
  }
  if (isObj(p.fileData) && typeof p.fileData.fileUri === 'string') {
    const mime = typeof p.fileData.mimeType === 'string' ? p.fileData.mimeType : undefined;
    const url = p.fileData.fileUri;
    const media: HubPart = mime?.startsWith('image/')
      ? { type: 'image', url, mediaType: mime }
      : { type: 'file', url, ...(mime ? { mediaType: mime } : {}) };
    return [media, ...after];
  }
  if (Object.keys(p).some((k) => k !== 'thoughtSignature' && k !== 'thought'))
    return [{ type: 'opaque', format: 'gemini', value: p }, ...after];
  return after;
}

/** An upstream's GenerateContentResponse as a hub response (its first candidate). */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw notAnAnswer();
  if (isObj(body.error) && !Array.isArray(body.candidates)) {
    const e = errorOf(body.error, 0);
    throw new RelayError(e.status, e.message, 'upstream_error', e.code ?? null, null, false);
  }
  const candidate = firstCandidate(body);
  const parts = partsOf(candidate).flatMap(answerPart);
  const feedback = isObj(body.promptFeedback) ? body.promptFeedback : {};
  const blocked = !candidate && typeof feedback.blockReason === 'string' ? feedback.blockReason : undefined;
  const hasCalls = parts.some((p) => p.type === 'tool_call');
  return {
    id: answerId(body),
    model: answerModel(body, ctx),
    created: answerCreated(body) ?? Math.floor(Date.now() / 1000),
    parts,
    stop: blocked ? 'content_filter' : hubStop(candidate?.finishReason, hasCalls),
    usage: decodeUsage(body.usageMetadata),
    ...(blocked ? { promptBlocked: blocked } : {}),
  };
}

/**
 * A hub response as a GenerateContentResponse: one candidate with the model's parts (thinking as thought
 * parts, tool calls as functionCall parts with their Gemini signature restored, refusals as text), its
 * finishReason and the usage. A blocked prompt is promptFeedback.blockReason with no candidates.
 */
export function encodeResponse(res: HubResponse, _ctx: CodecContext): unknown {
  const meta = { usageMetadata: encodeUsage(res.usage), modelVersion: res.model, responseId: res.id };
  if (res.promptBlocked) return { promptFeedback: { blockReason: blockReason(res.promptBlocked) }, ...meta };
  const parts = modelParts(res.parts, new Map(), true);
  return {
    candidates: [
      {
        ...(parts.length ? { content: { role: 'model', parts } } : {}),
        finishReason: finishReason(res.stop),
        index: 0,
      },
    ],
    ...meta,
  };
}
