import type { IncomingHttpHeaders } from 'node:http';
import type { OptionStore } from '../../modules/options/store.ts';
import type { Mode } from '../admit/inspect-request.ts';
import type { UpstreamResponse } from '../call/upstream-response.ts';
import type { UpstreamFormat, WireFormat } from '../formats/hub.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';

/** One upstream call as a provider sees it. */
export interface UpstreamCall {
  mode: Mode;
  /** The wire format of the body sent upstream (generation and embeddings); every other mode is OpenAI's. */
  format: UpstreamFormat;
  /** The client path, e.g. /v1/chat/completions. */
  path: string;
  /** The model name after the channel's mapping. */
  model: string;
  stream: boolean;
  /** The client's query string, raw (Azure reads api-version from it). */
  query: string;
  /** The client's headers (Anthropic's version and beta headers are passed on). */
  clientHeaders: IncomingHttpHeaders;
  /** Gemini's embeddings action (`embedContent` for a Gemini client's single text, else `batchEmbedContents`). */
  geminiAction?: string;
  /** The gateway's options (the claude.* and gemini.* settings). */
  options: OptionStore;
}

/**
 * How to reach one kind of upstream (a host): which wire format it speaks, its URL per call, its auth and
 * headers, and edits of the outgoing body. The pipeline knows nothing else about a provider; codecs
 * (formats/) know the wire formats and nothing about hosts.
 */
export interface ProviderAdapter {
  name: string;
  /**
   * The wire format this channel is called in for a generation request whose client speaks `client`.
   * When it equals the client's, the body is relayed as it came (only the gateway's own edits). `model` is the
   * model after the channel's mapping (a host serving several model families speaks one format per family).
   */
  formatFor(ch: ChannelEntry, client: WireFormat, model: string): UpstreamFormat;
  /** Operations besides generation the host serves (OpenAI's endpoints); absent = all of them. */
  modes?: ReadonlySet<Mode>;
  /** The wire format of its embeddings endpoint, when it is not OpenAI's. */
  embeddingFormat?: UpstreamFormat;
  /**
   * Embeddings in the provider's own shape (when embeddingFormat is neither OpenAI's nor Gemini's): the body for
   * a list of texts, and the vectors (in input order) and prompt tokens of its answer (0 when it reports none).
   */
  embeddings?: {
    body(model: string, texts: string[], call: UpstreamCall): Record<string, unknown>;
    answer(json: unknown): { vectors: number[][]; promptTokens: number };
  };
  /**
   * Makes the call itself instead of one HTTP POST (a provider reached over a WebSocket). Answers like an HTTP
   * response: for a stream, a body of SSE frames its codec's stream decoder reads; otherwise a JSON answer.
   * Network failures are RelayErrors (502/504), as the HTTP path gives them. `http` is the relay's own sender
   * (pooled, SSRF-guarded, the channel's proxy), for calls that are plain HTTP after all or take several
   * steps (submit a task, then poll it).
   */
  send?(req: ProviderSend, ch: ChannelEntry, call: UpstreamCall, http: HttpSender): Promise<UpstreamResponse>;
  /** Turns a stream body that is not SSE (AWS's binary event stream) into the SSE frames of its format. */
  streamBody?(body: AsyncIterable<Buffer>, call: UpstreamCall): AsyncIterable<Buffer>;
  /** The models the account offers (the console's "fetch models"), when the provider lists them. */
  listModels?(ch: ChannelEntry, http: ProviderHttp): Promise<string[]>;
  /** The account's remaining balance, when the provider publishes one (in its currency, as reported). */
  balance?(ch: ChannelEntry, http: ProviderHttp): Promise<number>;
  /** Checks a key's shape when a channel is saved; throws an Error whose message names the expected shape. */
  checkKey?(key: string): void;
  /** Checks the channel's `other` field when a channel is saved; throws an Error saying what it must hold. */
  checkOther?(other: string): void;
  url(ch: ChannelEntry, call: UpstreamCall): string;
  /**
   * Auth and provider headers. May be async (exchanged or signed credentials) and sees the final URL and
   * body bytes, for hosts that sign requests.
   */
  headers(
    ch: ChannelEntry,
    call: UpstreamCall,
    url: string,
    body: string | Buffer | undefined,
  ): Record<string, string> | Promise<Record<string, string>>;
  /** Whether the provider honours stream_options.include_usage (OpenAI format only). */
  streamUsage(ch: ChannelEntry): boolean;
  /**
   * Provider-specific edits of the outgoing JSON body (after model mapping, before param override). Returns
   * true when it changed something: an unchanged body is sent as the client wrote it.
   */
  prepareBody?(body: Record<string, unknown>, ch: ChannelEntry, call: UpstreamCall): boolean;
}

/** An upstream's answer as the pipeline reads it (status, headers, a body to iterate or read as text). */
export type { UpstreamResponse };

/** What a provider that sends its own calls gets: the URL, headers and body the pipeline built. */
export interface ProviderSend {
  url: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  /** Aborted when the client goes away or the relay timeout passes. */
  signal: { aborted: boolean; on(event: 'abort', listener: () => void): void };
  /** The gateway's options (the SSRF policy for the connection). */
  options: OptionStore;
}

/**
 * JSON over HTTP through the SSRF guard, for model lists, balances and token exchanges. Non-2xx answers and
 * bodies that are not JSON throw an Error whose message says what the upstream answered (secrets scrubbed).
 */
export type ProviderHttp = (
  url: string,
  init?: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown; form?: boolean },
) => Promise<unknown>;

/** The relay's HTTP sender as a provider's own transport may use it (POST unless told otherwise). */
export type HttpSender = (req: {
  url: string;
  headers: Record<string, string>;
  body?: string;
  method?: 'GET' | 'POST';
  stream: boolean;
}) => Promise<UpstreamResponse>;
