import { isObj, type Obj } from '../../formats/chat/check.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import { errorAnswer, jsonAnswer } from '../error-answer.ts';
import type { HttpSender, ProviderSend, UpstreamResponse } from '../types.ts';
import { decodeError } from './errors.ts';

/** A document as the string Cohere's v2 rerank takes (a Jina `{text}` object, or any other object as JSON). */
const docText = (d: unknown) =>
  typeof d === 'string' ? d : isObj(d) && typeof d.text === 'string' ? d.text : JSON.stringify(d);

/**
 * The gateway's rerank (a Jina/Cohere-style body) on Cohere's `/v2/rerank`, answered in the shape rerank
 * clients read: `results[{index, relevance_score, document:{text}}]`. Cohere's v2 returns no documents, so
 * they are put back from the request unless the client set return_documents to false.
 */
export async function rerank(req: ProviderSend, http: HttpSender): Promise<UpstreamResponse> {
  const asked: Obj = parseJsonOrNull(req.body) ?? {};
  const documents = Array.isArray(asked.documents) ? asked.documents.map(docText) : [];
  const body: Obj = { model: asked.model, query: asked.query, documents };
  if (typeof asked.top_n === 'number') body.top_n = asked.top_n;
  if (typeof asked.max_tokens_per_doc === 'number') body.max_tokens_per_doc = asked.max_tokens_per_doc;
  const res = await http({ url: req.url, headers: req.headers, body: JSON.stringify(body), stream: false });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) return errorAnswer(decodeError(res.statusCode, text));
  const json = parseJsonOrNull(text);
  if (!isObj(json) || !Array.isArray(json.results))
    return errorAnswer({ status: 502, kind: 'server', message: 'Cohere answered no rerank results' });
  const withDocs = asked.return_documents !== false;
  const results = json.results.filter(isObj).map((r) => ({
    index: r.index,
    relevance_score: r.relevance_score,
    ...(withDocs && typeof r.index === 'number' && documents[r.index] !== undefined
      ? { document: { text: documents[r.index] } }
      : {}),
  }));
  return jsonAnswer(200, {
    ...(typeof json.id === 'string' ? { id: json.id } : {}),
    results,
    ...(isObj(json.meta) ? { meta: json.meta } : {}),
  });
}
