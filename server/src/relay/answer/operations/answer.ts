import type { Produced } from '../../admit/relay-input.ts';
import type { RelayReply } from '../../http/exchange.ts';

/**
 * A non-stream answer for the client: the upstream's text as received, an object to serialise as JSON, or a
 * byte stream (audio); with the content type to send, else the framework's JSON one.
 */
export interface ClientAnswer {
  body: unknown;
  contentType?: string;
}

/** What an operation produced: the answer to write and what it is billed. */
export interface Answered {
  answer: ClientAnswer;
  produced: Produced;
}

/** The one place a non-stream answer's bytes are written to the client (streams: answer/stream/format-stream.ts). */
export function sendAnswer(reply: RelayReply, a: ClientAnswer): void {
  reply.code(200);
  if (a.contentType) reply.header('content-type', a.contentType);
  reply.send(a.body);
}
