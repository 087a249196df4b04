import type { UpstreamCall } from '../providers/types.ts';
import type {
  CodecContext,
  HubError,
  HubRequest,
  HubResponse,
  HubStreamDecoder,
  HubStreamEncoder,
  UpstreamFormat,
  WireFormat,
} from './hub.ts';

/**
 * Embeddings in a format: the texts of a request, a request body for texts, and the action the URL names.
 * Only OpenAI's and Gemini's formats have one; a provider's own shape is its adapter's.
 */
export interface EmbeddingsWire {
  /** The texts of a request (400 when there are none); `batch` for a batch endpoint. */
  texts(body: Record<string, unknown>, batch: boolean): string[];
  /** A request body asking for the embeddings of `texts`. */
  body(model: string, texts: string[]): Record<string, unknown>;
  /** The action named in the URL, for one text asked for singly or for a batch (Gemini). */
  action?(single: boolean): string;
  /** The vectors of an answer in this format, in input order. */
  vectors(json: unknown): number[][];
  /** The prompt tokens an answer reports (Gemini's report none: counted here). */
  promptTokens?(json: unknown): number;
  /** Vectors as this format's answer to `request` (a batch endpoint's when `batch`). */
  answer(vectors: number[][], to: EmbeddingsAnswerTo): unknown;
}

/** What an embeddings answer says besides the vectors, and the request it answers. */
export interface EmbeddingsAnswerTo {
  model: string;
  promptTokens: number;
  request: Record<string, unknown> | undefined;
  batch: boolean;
}

/** The model list and one model in a format's own shape; `ownedBy` names a model's owner (OpenAI's list). */
export interface ModelListing {
  list(ids: string[], ownedBy: (id: string) => string): unknown;
  one(id: string, ownedBy: (id: string) => string): unknown;
}

/**
 * A format as an upstream's: the request it takes, its answer, its stream events and its errors, and the facts
 * the relay needs of it when it calls a channel of this format. decodeResponse throws a RelayError when the body
 * is an error in disguise (a 200 carrying an error code).
 */
export interface UpstreamCodec {
  format: UpstreamFormat;
  encodeRequest(req: HubRequest, ctx: CodecContext): Record<string, unknown>;
  decodeResponse(body: unknown, ctx: CodecContext): HubResponse;
  streamDecoder(ctx: CodecContext): HubStreamDecoder;
  /** An upstream's non-2xx body (raw text) as a hub error. */
  decodeError(status: number, text: string): HubError;
  /** The path of a generation call, when it is not the mode's OpenAI path (Responses' /v1/responses). */
  chatPath?: string;
  /** The model is named in the URL, never in the body (Gemini): the gateway does not write it into the body. */
  modelInUrl?: boolean;
  /** max_tokens to send when the request has none and the format requires one (Anthropic). */
  defaultMaxTokens?(call: UpstreamCall): number;
  /**
   * A stream's usage is asked for in the body (OpenAI chat's stream_options.include_usage): added for a
   * channel that honours it, taken out for one that does not.
   */
  streamUsageOption?: boolean;
  /**
   * Its answers are OpenAI chat completions and chunks, which a relay in this same format edits in place (the
   * channel's chunk rewrites, the guardrails' masks, the usage chunk the client asked for) instead of decoding
   * and encoding them again.
   */
  chatChunks?: boolean;
  /** A 2xx answer relayed as it came that is this format's error object: a failure another channel may not have. */
  errorInAnswer?(json: unknown): boolean;
  embeddings?: EmbeddingsWire;
}

/**
 * A wire format, both as the client's language (decodeRequest, encodeResponse, streamEncoder, encodeError)
 * and as an upstream's (encodeRequest, decodeResponse, streamDecoder, decodeError).
 * decodeRequest throws a RelayError (400) on a body the format's own server would refuse.
 */
export interface WireCodec extends UpstreamCodec {
  format: WireFormat;
  decodeRequest(body: Record<string, unknown>, ctx: CodecContext): HubRequest;
  encodeResponse(res: HubResponse, ctx: CodecContext): unknown;
  streamEncoder(ctx: CodecContext): HubStreamEncoder;
  /** A hub error as this format's status and body. */
  encodeError(err: HubError, requestId: string): { status: number; body: unknown };
  /** The event that ends a stream relayed as it came, after a failure mid-stream. */
  encodeStreamError(err: HubError, requestId: string): string;
  /** Errors are OpenAI's error object as the gateway makes it (chat, Responses), not encodeError's. */
  openaiErrors?: boolean;
  /**
   * Requests are inspected on arrival, not decoded (OpenAI chat's fast path): the hub request is made only when
   * a channel of another format serves one.
   */
  inspectOnly?: boolean;
  /** A count-tokens body as the generation request it counts (when the two differ). */
  countingBody?(body: Record<string, unknown>): Record<string, unknown>;
  /** A count-tokens answer for `n` tokens (else Anthropic's `{input_tokens}`). */
  countAnswer?(n: number): unknown;
  /** A streamed answer is one JSON array written piece by piece, not SSE, for this query (Gemini without alt=sse). */
  streamsJsonArray?(query: Record<string, unknown> | undefined): boolean;
  /** Throws the 400 for a request that only a channel of this same format can serve, before it is converted. */
  refuseConversion?(body: Record<string, unknown>, model: string): void;
  /** A conversation id the client names in the body, for keeping its turns on one channel. */
  conversationKey?(body: Record<string, unknown>): string | undefined;
  /** The model list in this format's shape (else OpenAI's). */
  models?: ModelListing;
}
