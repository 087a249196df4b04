import type { HubError } from '../formats/hub.ts';
import { responseOf } from './response.ts';
import type { UpstreamResponse } from './types.ts';

/** A JSON answer, as a provider's own transport gives it to the relay. */
export const jsonAnswer = (status: number, body: unknown): UpstreamResponse =>
  responseOf(status, [Buffer.from(JSON.stringify(body))]);

/**
 * A provider's error as an OpenAI error answer with the status its code stands for, so the relay, the retry
 * rules and the channel test see that status (Cohere's 498 is a 401, a Coze code 4100 inside a 200 too).
 */
export const errorAnswer = (e: HubError): UpstreamResponse =>
  jsonAnswer(e.status, {
    error: {
      message: e.message,
      type: e.kind === 'quota' ? 'insufficient_quota' : 'upstream_error',
      param: null,
      code: e.code ?? null,
    },
  });
