import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import type { ProviderAdapter } from '../types.ts';
import { aliError } from './errors.ts';

/** DashScope's text-embedding API: `{input:{texts}}` in, `output.embeddings[{text_index, embedding}]` out. */
export const aliEmbeddings: NonNullable<ProviderAdapter['embeddings']> = {
  body: (model, texts) => ({ model, input: { texts }, parameters: { text_type: 'query' } }),
  answer(json) {
    const body = isObj(json) ? json : {};
    if (!isObj(body.output)) throw relayErrorOf(aliError(body.code, body.message, 502));
    const list = Array.isArray(body.output.embeddings) ? body.output.embeddings : [];
    const vectors: number[][] = [];
    list.forEach((e, pos) => {
      if (!isObj(e) || !Array.isArray(e.embedding)) return;
      vectors[typeof e.text_index === 'number' ? e.text_index : pos] = e.embedding as number[];
    });
    const usage = isObj(body.usage) ? body.usage : {};
    return { vectors: Array.from(vectors, (v) => v ?? []), promptTokens: count(usage.total_tokens) };
  },
};
