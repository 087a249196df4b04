import { badRequest } from '../relay-error.ts';

/**
 * Embeddings between OpenAI's `/v1/embeddings` and Gemini's `:embedContent` / `:batchEmbedContents`: the
 * texts of a request, a request body in the other format, and an answer in the client's format.
 */

/** The texts of a Gemini embedContent or batchEmbedContents body (400 when there are none). */
export function geminiEmbedTexts(body: Record<string, unknown>, batch: boolean): string[] {
  const partsText = (content: unknown): string => {
    const parts = (content as { parts?: unknown } | undefined)?.parts;
    if (!Array.isArray(parts))
      throw badRequest('content.parts must be a list of parts', 'invalid_value', 'content');
    return parts.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  };
  const texts = batch
    ? Array.isArray(body.requests)
      ? body.requests.map((r) => partsText((r as { content?: unknown } | null)?.content))
      : []
    : [partsText(body.content)];
  if (!texts.length || texts.every((t) => !t))
    throw badRequest(
      batch ? 'requests must hold at least one text' : 'content must hold text',
      'invalid_value',
    );
  return texts;
}

/** The texts of an OpenAI embeddings body (a string or a list of strings). */
export function openaiEmbedTexts(body: Record<string, unknown>): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((s) => typeof s === 'string')) return input as string[];
  throw badRequest('this channel takes embeddings input as text only', 'invalid_value', 'input');
}

export const openaiEmbedBody = (model: string, texts: string[]) => ({ model, input: texts });

export const geminiBatchBody = (model: string, texts: string[]) => ({
  requests: texts.map((text) => ({ model: `models/${model}`, content: { parts: [{ text }] } })),
});

/** The vectors of an OpenAI embeddings answer, in input order. */
export function openaiVectors(json: any): number[][] {
  const data = Array.isArray(json?.data)
    ? [...json.data].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0))
    : [];
  return data.map((d) => (Array.isArray(d?.embedding) ? d.embedding : []));
}

/** The vectors of a Gemini embeddings answer (single or batch). */
export function geminiVectors(json: any): number[][] {
  const list: Array<{ values?: number[] }> = Array.isArray(json?.embeddings)
    ? json.embeddings
    : json?.embedding
      ? [json.embedding]
      : [];
  return list.map((e) => e?.values ?? []);
}

/** Vectors as Gemini's embeddings answer (one embedding, or a batch). */
export function geminiEmbedAnswer(vectors: number[][], batch: boolean): unknown {
  const values = vectors.map((v) => ({ values: v }));
  return batch ? { embeddings: values } : { embedding: values[0] ?? { values: [] } };
}

/**
 * Vectors in input order as OpenAI's embeddings answer; with `base64` (the client's `encoding_format`, which
 * the official SDKs ask for by default) each vector is its float32 little-endian bytes in base64.
 */
export const embeddingList = (vectors: number[][], model: string, promptTokens: number, base64 = false) => ({
  object: 'list',
  data: vectors.map((v, index) => ({
    object: 'embedding',
    index,
    embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v,
  })),
  model,
  usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
});
