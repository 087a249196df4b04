import type { Obj } from '../../formats/chat/check.ts';
import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import type { ProviderAdapter } from '../types.ts';

/** Cohere's input types; the channel setting `input_type` picks one (search_document by default). */
export const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering']);

/**
 * Embeddings on Cohere's `/v2/embed`: texts in, float vectors out (`embeddings.float`), the prompt tokens from
 * `meta.billed_units.input_tokens`.
 */
export const cohereEmbeddings: NonNullable<ProviderAdapter['embeddings']> = {
  body: (model, texts) => ({
    model,
    texts,
    input_type: 'search_document',
    embedding_types: ['float'],
  }),
  answer(json) {
    const j: Obj = isObj(json) ? json : {};
    const e = j.embeddings;
    // Without embedding_types Cohere answers a bare list of float vectors.
    const list = isObj(e) ? e.float : e;
    const vectors = Array.isArray(list) ? list.map((v) => (Array.isArray(v) ? (v as number[]) : [])) : [];
    const meta = isObj(j.meta) ? j.meta : {};
    const billed = isObj(meta.billed_units) ? meta.billed_units : {};
    return { vectors, promptTokens: count(billed.input_tokens) };
  },
};
