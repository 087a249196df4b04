import type { IncomingHttpHeaders } from 'node:http';
import type { OptionStore } from '../../modules/options/store.ts';
import type { ChannelEntry } from '../cache/channels.ts';
import type { WireFormat } from '../formats/hub.ts';
import type { Mode } from '../formats/openai/request.ts';

/** One upstream call as a provider sees it. */
export interface UpstreamCall {
  mode: Mode;
  /** The wire format of the body sent upstream (generation); every other mode is OpenAI's. */
  format: WireFormat;
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
   * When it equals the client's, the body is relayed as it came (only the gateway's own edits).
   */
  formatFor(ch: ChannelEntry, client: WireFormat): WireFormat;
  /** Operations besides generation the host serves (OpenAI's endpoints); absent = all of them. */
  modes?: ReadonlySet<Mode>;
  /** The wire format of its embeddings endpoint, when it is not OpenAI's. */
  embeddingFormat?: WireFormat;
  url(ch: ChannelEntry, call: UpstreamCall): string;
  /**
   * Auth and provider headers. May be async (exchanged or signed credentials) and sees the final URL and
   * body bytes, for hosts that sign requests.
   */
  headers(
    ch: ChannelEntry,
    call: UpstreamCall,
    url: string,
    body: string | undefined,
  ): Record<string, string> | Promise<Record<string, string>>;
  /** Whether the provider honours stream_options.include_usage (OpenAI format only). */
  streamUsage(ch: ChannelEntry): boolean;
  /**
   * Provider-specific edits of the outgoing JSON body (after model mapping, before param override). Returns
   * true when it changed something: an unchanged body is sent as the client wrote it.
   */
  prepareBody?(body: Record<string, unknown>, ch: ChannelEntry, call: UpstreamCall): boolean;
}
