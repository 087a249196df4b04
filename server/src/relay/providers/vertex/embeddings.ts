import { RelayError } from '../../relay-error.ts';
import { bodyOf } from '../response.ts';
import type { HttpSender, ProviderAdapter, ProviderSend, UpstreamResponse } from '../types.ts';

interface Prediction {
  embeddings?: { values?: unknown; statistics?: { token_count?: unknown } };
}

/** Text embeddings at `:predict`: `{instances:[{content}]}` -> `predictions[].embeddings.values`. */
export const vertexEmbeddings: NonNullable<ProviderAdapter['embeddings']> = {
  body: (_model, texts) => ({ instances: texts.map((content) => ({ content })) }),
  answer(json) {
    const predictions = (json as { predictions?: unknown })?.predictions;
    if (!Array.isArray(predictions) || !predictions.length) throw noPredictions();
    let promptTokens = 0;
    const vectors = (predictions as Prediction[]).map((p) => {
      const n = Number(p?.embeddings?.statistics?.token_count);
      if (Number.isFinite(n) && n > 0) promptTokens += n;
      const values = p?.embeddings?.values;
      return Array.isArray(values) ? (values as number[]) : [];
    });
    return { vectors, promptTokens };
  },
};

/**
 * Sends a `:predict` whose model takes one text per call (gemini-embedding-*) as one call per text, and answers
 * with their predictions together, in order. The first refusal is the answer when any call is refused.
 */
export async function predictEach(req: ProviderSend, http: HttpSender): Promise<UpstreamResponse> {
  const body = JSON.parse(req.body) as { instances: unknown[] };
  const answers = await Promise.all(
    body.instances.map((instance) =>
      http({
        url: req.url,
        headers: req.headers,
        body: JSON.stringify({ ...body, instances: [instance] }),
        stream: false,
      }),
    ),
  );
  const texts = await Promise.all(answers.map((a) => a.body.text()));
  const refused = answers.findIndex((a) => a.statusCode < 200 || a.statusCode >= 300);
  const whole = (status: number, text: string): UpstreamResponse => ({
    statusCode: status,
    headers: { 'content-type': 'application/json' },
    body: bodyOf([Buffer.from(text)]),
  });
  if (refused >= 0) return whole(answers[refused].statusCode, texts[refused]);
  const predictions = texts.map((text) => {
    let json: { predictions?: unknown };
    try {
      json = JSON.parse(text);
    } catch {
      throw noPredictions();
    }
    if (!Array.isArray(json?.predictions) || json.predictions.length !== 1) throw noPredictions();
    return json.predictions[0];
  });
  return whole(200, JSON.stringify({ predictions }));
}

const noPredictions = () =>
  new RelayError(
    502,
    'the Vertex AI embeddings answer has no predictions',
    'upstream_error',
    'bad_response_body',
    null,
    false,
  );
