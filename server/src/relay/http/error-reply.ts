import type { FastifyBaseLogger } from 'fastify';
import { codecFor } from '../formats/codecs.ts';
import { kindOfStatus } from '../formats/common.ts';
import type { HubError, WireFormat } from '../formats/hub.ts';
import { RelayError, relayFailure } from '../relay-error.ts';

/**
 * Any error thrown while relaying, as the status and body the client's protocol uses: OpenAI's
 * `{error:{message,type,param,code}}`, Anthropic's `{type:"error",error:{type,message}}` or Google's
 * `{error:{code,message,status}}`. The request id is in the message (and in a header on every reply);
 * `headers` are the error's own (retry-after...), to set on the reply.
 */
export function failureIn(
  format: WireFormat,
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { status: number; body: unknown; headers?: Record<string, string> } {
  const headers = err instanceof RelayError ? err.headers : undefined;
  return { ...encodedFailure(format, err, requestId, log), headers };
}

function encodedFailure(
  format: WireFormat,
  err: unknown,
  requestId: string,
  log: FastifyBaseLogger,
): { status: number; body: unknown } {
  const openai = relayFailure(err, requestId, log);
  const codec = codecFor(format);
  if (codec.openaiErrors) return openai;
  const e = openai.body.error;
  const suffix = ` (request id: ${requestId})`;
  const hub: HubError = {
    status: openai.status,
    // A spent balance is a billing error; a spent periodic budget (429, it renews) is a rate limit to the
    // client's retry logic (Anthropic's rate_limit_error, Gemini's RESOURCE_EXHAUSTED).
    kind:
      e.code === 'budget_exceeded'
        ? 'rate_limit'
        : e.type === 'insufficient_quota'
          ? 'quota'
          : kindOfStatus(openai.status),
    // The codec adds the request id to the message, as the OpenAI body has it.
    message: e.message.endsWith(suffix) ? e.message.slice(0, -suffix.length) : e.message,
    code: e.code,
    param: e.param,
  };
  return codec.encodeError(hub, requestId);
}
