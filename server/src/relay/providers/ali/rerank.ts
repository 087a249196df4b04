import { isObj, type Obj } from '../../formats/chat/check.ts';
import { count, parseJsonOrNull } from '../../formats/common.ts';
import { errorAnswer, jsonAnswer } from '../error-answer.ts';
import type { HttpSender, ProviderSend, UpstreamResponse } from '../types.ts';
import { aliError, decodeError } from './errors.ts';

/** A Jina/Cohere rerank request (`{model, query, documents, top_n, return_documents}`) as DashScope's. */
export function rerankBody(b: Obj): Obj {
  if (isObj(b.input)) return b;
  const documents = Array.isArray(b.documents)
    ? b.documents.map((d) => (isObj(d) && typeof d.text === 'string' ? d.text : d))
    : [];
  return {
    model: b.model,
    input: { query: b.query, documents },
    parameters: {
      ...(typeof b.top_n === 'number' ? { top_n: b.top_n } : {}),
      ...(typeof b.return_documents === 'boolean' ? { return_documents: b.return_documents } : {}),
    },
  };
}

/** DashScope's text-rerank, answered in the Jina/Cohere shape `{results:[{index, relevance_score}], usage}`. */
export async function rerank(req: ProviderSend, http: HttpSender): Promise<UpstreamResponse> {
  const body = rerankBody(parseJsonOrNull(req.body) ?? {});
  const res = await http({ url: req.url, headers: req.headers, body: JSON.stringify(body), stream: false });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode >= 300) return errorAnswer(decodeError(res.statusCode, text));
  const json = parseJsonOrNull(text);
  if (!isObj(json) || !isObj(json.output))
    return errorAnswer(aliError(json?.code, json?.message ?? 'DashScope answered no rerank results', 502));
  const tokens = count(isObj(json.usage) ? json.usage.total_tokens : 0);
  return jsonAnswer(200, {
    ...(typeof json.request_id === 'string' ? { id: json.request_id } : {}),
    results: Array.isArray(json.output.results) ? json.output.results : [],
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}
