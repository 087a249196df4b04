import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { isObj } from '../../formats/chat/check.ts';
import { count, parseJsonOrNull } from '../../formats/common.ts';
import { responseOf } from '../response.ts';
import type { HttpSender, ProviderSend, UpstreamResponse } from '../types.ts';
import { isErrorAnswer, zhipuError } from './errors.ts';

/**
 * text_embedding takes one text per call (`{prompt: "..."}`). Several texts go as `{prompt: [...]}` to
 * sendEmbeddings, which makes one call per text and answers `{code: 200, data: {embeddings, usage}}`.
 */
export const embeddingsBody = (texts: string[]) => ({ prompt: texts.length === 1 ? texts[0] : texts });

/** One call per text, in order; the first failure is the answer. */
export async function sendEmbeddings(req: ProviderSend, http: HttpSender): Promise<UpstreamResponse | null> {
  const body = parseJsonOrNull(req.body);
  if (!isObj(body) || !Array.isArray(body.prompt)) return null;
  const vectors: unknown[] = [];
  let prompt = 0;
  for (const text of body.prompt) {
    const res = await http({
      url: req.url,
      headers: req.headers,
      body: JSON.stringify({ ...body, prompt: text }),
      stream: false,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) return res;
    const raw = await res.body.text();
    const answer = parseJsonOrNull(raw);
    if (!isObj(answer) || isErrorAnswer(answer) || !isObj(answer.data))
      return responseOf(res.statusCode, [Buffer.from(raw)]);
    vectors.push(answer.data.embedding);
    prompt += count(isObj(answer.data.usage) ? answer.data.usage.prompt_tokens : 0);
  }
  const merged = {
    code: 200,
    success: true,
    data: { embeddings: vectors, usage: { prompt_tokens: prompt } },
  };
  return responseOf(200, [Buffer.from(JSON.stringify(merged))]);
}

/** A text_embedding answer (one `embedding`, or the merged `embeddings`) as vectors and prompt tokens. */
export function embeddingsAnswer(json: unknown): { vectors: number[][]; promptTokens: number } {
  if (!isObj(json)) return { vectors: [], promptTokens: 0 };
  if (isErrorAnswer(json)) throw relayErrorOf(zhipuError(json.code, json.msg, 0));
  const data = isObj(json.data) ? json.data : {};
  const list = Array.isArray(data.embeddings) ? data.embeddings : [data.embedding];
  return {
    vectors: list.map((v) => (Array.isArray(v) ? (v as number[]) : [])),
    promptTokens: count(isObj(data.usage) ? data.usage.prompt_tokens : 0),
  };
}
