import { EventStreamCodec, type Message } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { parseJsonOrNull as parse, sseEvent } from '../../formats/common.ts';
import { RelayError } from '../../relay-error.ts';

/** Bedrock's stream exceptions as Anthropic's error types (the type decides the status the client sees). */
const ERROR_TYPES: Record<string, string> = {
  throttlingException: 'rate_limit_error',
  serviceQuotaExceededException: 'rate_limit_error',
  validationException: 'invalid_request_error',
  accessDeniedException: 'permission_error',
  resourceNotFoundException: 'not_found_error',
  modelTimeoutException: 'timeout_error',
  serviceUnavailableException: 'overloaded_error',
  modelNotReadyException: 'overloaded_error',
  internalServerException: 'api_error',
  modelStreamErrorException: 'api_error',
};

/** A message is at least its prelude (12 bytes) and CRC (4); AWS caps one at 16 MB. */
const MIN_MESSAGE = 16;
const MAX_MESSAGE = 16 * 1024 * 1024;

const malformed = (why: string) =>
  new RelayError(
    502,
    `the upstream event stream is malformed: ${why}`,
    'upstream_error',
    'bad_response_body',
    null,
    false,
  );

/**
 * InvokeModelWithResponseStream's `application/vnd.amazon.eventstream` body as Anthropic SSE frames: each
 * `chunk` event's base64 `bytes` is one Anthropic stream event; an exception becomes an Anthropic `error`
 * event. Messages split across network chunks are put back together by their length prelude.
 */
export async function* anthropicSse(body: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let frames = '';
    while (pending.length >= 4) {
      const length = pending.readUInt32BE(0);
      if (length < MIN_MESSAGE || length > MAX_MESSAGE) throw malformed(`a message of ${length} bytes`);
      if (pending.length < length) break;
      let message: Message;
      try {
        message = codec.decode(pending.subarray(0, length));
      } catch (err) {
        throw malformed((err as Error).message);
      }
      pending = pending.subarray(length);
      frames += frameOf(message);
    }
    if (frames) yield Buffer.from(frames);
  }
  if (pending.length) throw malformed('the stream ended inside a message');
}

const header = (m: Message, name: string) => {
  const h = m.headers[name];
  return h && typeof h.value === 'string' ? h.value : '';
};

function frameOf(m: Message): string {
  const kind = header(m, ':message-type');
  if (kind === 'event') {
    if (header(m, ':event-type') !== 'chunk') return '';
    const payload = parse(toUtf8(m.body)) as { bytes?: unknown } | null;
    if (typeof payload?.bytes !== 'string') throw malformed('a chunk without bytes');
    const event = parse(Buffer.from(payload.bytes, 'base64').toString('utf8')) as { type?: unknown } | null;
    if (!event || typeof event.type !== 'string') throw malformed('a chunk that is not an Anthropic event');
    return sseEvent(event.type, event);
  }
  if (kind === 'exception') {
    const name = header(m, ':exception-type');
    const body = parse(toUtf8(m.body)) as { message?: unknown; Message?: unknown } | null;
    const text = body?.message ?? body?.Message;
    const message = typeof text === 'string' && text ? text : `${name || 'unknown'} in the upstream stream`;
    return errorFrame(ERROR_TYPES[name] ?? 'api_error', message);
  }
  if (kind === 'error')
    return errorFrame(
      'api_error',
      header(m, ':error-message') || header(m, ':error-code') || 'upstream error',
    );
  return '';
}

const errorFrame = (type: string, message: string) =>
  sseEvent('error', { type: 'error', error: { type, message } });
