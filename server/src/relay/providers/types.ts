import type { ChannelEntry } from '../cache/channels.ts';
import type { Mode } from '../formats/openai/request.ts';

/** One upstream call as a provider sees it. */
export interface UpstreamCall {
  mode: Mode;
  /** The client path, e.g. /v1/chat/completions. */
  path: string;
  /** The model name after the channel's mapping. */
  model: string;
  stream: boolean;
  /** The client's query string, raw (Azure reads api-version from it). */
  query: string;
}

/**
 * How to reach one kind of upstream. The pipeline knows nothing else about a provider: it asks the adapter
 * for the URL and headers, lets it edit the outgoing JSON body, and reads usage through it.
 */
export interface ProviderAdapter {
  name: string;
  /** Body format the provider speaks; only 'openai' exists so far (formats/ converts the others later). */
  format: 'openai';
  url(ch: ChannelEntry, call: UpstreamCall): string;
  headers(ch: ChannelEntry, call: UpstreamCall): Record<string, string>;
  /** Whether the provider honours stream_options.include_usage. */
  streamUsage(ch: ChannelEntry): boolean;
  /** Provider-specific edits of the outgoing JSON body (after model mapping, before param override). */
  prepareBody?(body: Record<string, unknown>, ch: ChannelEntry, call: UpstreamCall): void;
}
