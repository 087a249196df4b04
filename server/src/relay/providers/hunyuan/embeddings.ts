import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import type { ProviderAdapter } from '../types.ts';
import { hunyuanError } from './errors.ts';

/** Hunyuan's GetEmbedding: `{InputList}` in (the model is fixed), `Response.Data[{Embedding, Index}]` out. */
export const hunyuanEmbeddings: NonNullable<ProviderAdapter['embeddings']> = {
  body: (_model, texts) => ({ InputList: texts }),
  answer(json) {
    const r = isObj(json) && isObj(json.Response) ? json.Response : {};
    if (isObj(r.Error)) throw relayErrorOf(hunyuanError(r.Error.Code, r.Error.Message));
    const data = (Array.isArray(r.Data) ? r.Data : []).filter(isObj);
    // A stable sort: Tencent documents Index as always 0, so equal indexes keep the answer's order.
    data.sort((a, b) => count(a.Index) - count(b.Index));
    const usage = isObj(r.Usage) ? r.Usage : {};
    return {
      vectors: data.map((d) => (Array.isArray(d.Embedding) ? (d.Embedding as number[]) : [])),
      promptTokens: count(usage.PromptTokens) || count(usage.TotalTokens),
    };
  },
};
