import { networkError } from '../../call/upstream-client.ts';
import { RelayError } from '../../relay-error.ts';
import type { FormatExchange } from '../format-answer.ts';

/** A non-stream answer's body. A connection lost while reading it is a retryable 502 (504 on a timeout). */
export async function readAnswer(x: FormatExchange): Promise<string> {
  let text: string;
  try {
    text = await x.res.body.text();
  } catch (err) {
    const e = networkError(err);
    if (e.status !== 502) throw e;
    throw new RelayError(
      502,
      'the upstream connection broke before its answer was complete',
      'upstream_error',
      'upstream_body_incomplete',
      null,
      false,
    );
  }
  x.meter?.received(false);
  return text;
}
