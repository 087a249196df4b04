/**
 * The gateway's own representation of a generation request, its answer and its stream events: the hub every
 * wire format converts to and from. Four formats meet through it (formats + providers work, not formats x
 * providers); adding a fifth format is adding one folder with one codec.
 *
 * It is shaped after the richest of the four (Anthropic Messages) so that nothing a pair of formats shares is
 * lost on the way: thinking text with its signature, redacted thinking, cache marks, tool calls with streamed
 * arguments, tool results carrying images, refusals, cache-read, cache-write and reasoning token counts.
 * Things only one format understands (an encrypted reasoning item, a Gemini thought signature, an Anthropic
 * thinking signature) travel tagged with the format that made them, and an encoder drops what was made for
 * another format instead of sending something the upstream cannot verify. To a client of another format they
 * go sealed in an envelope (envelope/), in that client's own opaque field, and come back restored.
 *
 * When the client's format is the channel's, nothing goes through the hub: the body is relayed as it came.
 */

export type WireFormat = 'openai' | 'responses' | 'anthropic' | 'gemini';

/**
 * The formats an upstream may speak: the four client formats, plus providers' own APIs that no client speaks
 * (each has an upstream-only codec in its provider's folder, relay/providers/<name>/).
 */
export type UpstreamFormat =
  | WireFormat
  | 'cohere'
  | 'dify'
  | 'coze'
  | 'baidu'
  | 'zhipu'
  | 'ali'
  | 'hunyuan'
  | 'xunfei'
  | 'vertex';

/** Anthropic's prompt-cache mark; other formats ignore it. */
export interface CacheMark {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface HubText {
  type: 'text';
  text: string;
  cache?: CacheMark;
}

export interface HubImage {
  type: 'image';
  /** An http(s) URL, or absent when the image is inline. */
  url?: string;
  /** Base64 bytes (no `data:` prefix) when inline. */
  data?: string;
  /** e.g. image/png; required with data. */
  mediaType?: string;
  /** OpenAI's detail hint (auto, low, high). */
  detail?: string;
  cache?: CacheMark;
}

/** A document (PDF and the like), inline or by URL. */
export interface HubFile {
  type: 'file';
  url?: string;
  data?: string;
  mediaType?: string;
  filename?: string;
  cache?: CacheMark;
}

/**
 * Thinking text. `signature` is the proof the upstream gave with it (Anthropic's thinking signature, Gemini's
 * thoughtSignature, the Responses reasoning item's encrypted_content); `signatureFormat` says whose it is.
 * `redacted` holds Anthropic's redacted_thinking data (then text is empty). `itemId` keeps a Responses
 * reasoning item's id so it can be replayed unchanged.
 */
export interface HubThinking {
  type: 'thinking';
  text: string;
  signature?: string;
  signatureFormat?: WireFormat;
  redacted?: string;
  itemId?: string;
}

/**
 * A tool call. `args` is the arguments' JSON text exactly as produced (streamed fragments concatenated).
 * `custom` marks a Responses freeform (custom) tool call, whose args are `{"input": "<raw text>"}`.
 * `signature`/`signatureFormat` carry a Gemini thoughtSignature attached to a functionCall part.
 */
export interface HubToolCall {
  type: 'tool_call';
  id: string;
  name: string;
  args: string;
  custom?: boolean;
  signature?: string;
  signatureFormat?: WireFormat;
  cache?: CacheMark;
}

/** The result of a tool call, sent back by the client. `name` is filled by decoders that know it. */
export interface HubToolResult {
  type: 'tool_result';
  callId: string;
  name?: string;
  content: Array<HubText | HubImage>;
  isError?: boolean;
  /** The result of a Responses custom tool call (custom_tool_call_output). */
  custom?: boolean;
  cache?: CacheMark;
}

/** A model's refusal text (OpenAI's `refusal`, Responses' refusal content part). */
export interface HubRefusal {
  type: 'refusal';
  text: string;
}

/**
 * Something only the format that made it can use (an Anthropic server_tool_use or web_search_tool_result
 * block, a Responses item of a kind the hub has no part for). Encoders of that format put `value` back
 * unchanged; every other encoder drops it.
 */
export interface HubOpaque {
  type: 'opaque';
  format: WireFormat;
  value: unknown;
}

export type HubPart =
  | HubText
  | HubImage
  | HubFile
  | HubThinking
  | HubToolCall
  | HubToolResult
  | HubRefusal
  | HubOpaque;

/**
 * One turn. Tool results sit in user turns (as in Anthropic's Messages); encoders for OpenAI chat split them
 * into `tool` messages, Gemini into functionResponse parts, Responses into function_call_output items.
 */
export interface HubMessage {
  role: 'user' | 'assistant';
  parts: HubPart[];
}

export interface HubTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments; `{type:'object',properties:{}}` when the tool takes none. */
  parameters: Record<string, unknown>;
  /** A Responses freeform tool (e.g. Codex's apply_patch): exposed elsewhere as one string parameter `input`. */
  custom?: boolean;
  strict?: boolean;
  cache?: CacheMark;
}

export type HubToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type ReasoningEffort = 'minimal' | 'low' | 'medium' | 'high';

export interface HubThinkingConfig {
  /** False when the client turned thinking off explicitly. */
  enabled: boolean;
  /** Token budget (Anthropic budget_tokens, Gemini thinkingBudget). */
  budgetTokens?: number;
  /** Effort level (OpenAI reasoning_effort / reasoning.effort). */
  effort?: ReasoningEffort;
  /** Ask for thought summaries / thinking text back (Gemini includeThoughts, Responses reasoning.summary). */
  includeThoughts?: boolean;
}

export type HubResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface HubRequest {
  model: string;
  stream: boolean;
  /** System prompt / instructions / developer messages, in order. */
  system: HubText[];
  messages: HubMessage[];
  tools: HubTool[];
  /**
   * Tools only one format's server runs (Anthropic's web_search_20250305, code_execution ...), kept whole and
   * tagged with that format: its encoder puts them back, every other encoder drops them. Before a request goes
   * to another format, hosted-tools.ts maps web search to its equivalent and refuses the rest (or drops them
   * where the operator allows it, saying so in a response header).
   */
  serverTools?: HubOpaque[];
  toolChoice?: HubToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  /** Number of choices; only OpenAI chat and Gemini can give more than one. */
  n?: number;
  seed?: number;
  frequencyPenalty?: number;
  presencePenalty?: number;
  thinking?: HubThinkingConfig;
  responseFormat?: HubResponseFormat;
  /** End-user id for abuse tracking (OpenAI user, Anthropic metadata.user_id). */
  user?: string;
  /** Responses' previous_response_id: state only the upstream that stored it can resolve. */
  previousResponseId?: string;
  /** Gemini's cachedContent (`cachedContents/...`): state only the Gemini upstream that stored it can resolve. */
  cachedContent?: string;
}

/** Why the model stopped, in the hub's words; each codec maps its own values to and from these. */
export type HubStop =
  | 'end' // natural end of turn
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_calls'
  | 'content_filter' // blocked output (or a blocked prompt)
  | 'refusal'
  | 'pause' // Anthropic pause_turn
  | 'error';

/**
 * Token counts. `input` counts every prompt token, including cache reads and writes (OpenAI's prompt_tokens
 * meaning); `output` counts every produced token, including reasoning. Anthropic's input_tokens (which excludes
 * cache reads and writes) converts as input = input_tokens + cache_creation + cache_read.
 */
export interface HubUsage {
  input: number;
  output: number;
  /** Prompt tokens read from the cache. */
  cacheRead: number;
  /** Prompt tokens written to the cache with a 5-minute TTL (Anthropic), or of unknown TTL. */
  cacheWrite: number;
  /** Prompt tokens written to the cache with a 1-hour TTL (Anthropic). */
  cacheWrite1h: number;
  /** Output tokens spent on reasoning (part of output). */
  reasoning: number;
  /** Web searches the upstream ran for the answer (its hosted web search tool), billed per call. */
  webSearches?: number;
}

export const emptyUsage = (): HubUsage => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  cacheWrite1h: 0,
  reasoning: 0,
});

export interface HubResponse {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
  /** The assistant's output, in order. */
  parts: HubPart[];
  stop: HubStop;
  /** The stop sequence that matched, when stop is 'stop_sequence'. */
  stopSequence?: string;
  usage: HubUsage;
  /** The prompt itself was blocked (Gemini promptFeedback.blockReason); the answer then has no parts. */
  promptBlocked?: string;
}

/**
 * Stream events in the hub. Decoders turn upstream events into these as they arrive; encoders turn them into
 * the client's events. Text and thinking deltas belong to the current block of their kind; a tool call is
 * opened by `tool_call` and grows by `tool_args` with the same `index` (0-based, counting tool calls only),
 * so parallel calls interleave safely. `usage` may come more than once; each carries the totals so far.
 * `finish` comes once, before the final usage when the upstream sends usage last; encoders emit their closing
 * events from `end()`, when both are known.
 */
export type HubEvent =
  | { type: 'start'; id: string; model: string; created?: number }
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'thinking_signature'; signature: string; format: WireFormat; itemId?: string }
  | { type: 'redacted_thinking'; data: string }
  | {
      type: 'tool_call';
      index: number;
      id: string;
      name: string;
      custom?: boolean;
      signature?: string;
      signatureFormat?: WireFormat;
    }
  | { type: 'tool_args'; index: number; delta: string }
  | { type: 'refusal'; text: string }
  | { type: 'opaque'; format: WireFormat; value: unknown }
  | { type: 'usage'; usage: HubUsage }
  | { type: 'finish'; stop: HubStop; stopSequence?: string; promptBlocked?: string }
  | { type: 'error'; error: HubError };

/** What went wrong, in terms every format can express. */
export type HubErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  | 'rate_limit'
  | 'quota' // the account has no balance left (OpenAI insufficient_quota)
  | 'overloaded'
  | 'timeout'
  | 'server';

export interface HubError {
  status: number;
  kind: HubErrorKind;
  message: string;
  /** The upstream's own code, when it gave one (kept for OpenAI-shaped errors). */
  code?: string | null;
  param?: string | null;
}

/** One server-sent event as read from the wire: the `event:` name (if any) and the `data:` payload. */
export interface SseEvent {
  event?: string;
  data: string;
  /**
   * `data` already parsed as JSON by the relay of a same-format OpenAI stream, which reads the event too; null
   * when it is not JSON. The chat decoder takes it instead of parsing again.
   */
  json?: unknown;
}

/** Turns one upstream stream's events into hub events; stateful, one per stream. */
export interface HubStreamDecoder {
  push(ev: SseEvent): HubEvent[];
  /** The stream ended; whatever is still pending. */
  end(): HubEvent[];
}

/** Turns hub events into the client's stream bytes (SSE frames, or JSON array pieces); one per stream. */
export interface HubStreamEncoder {
  push(ev: HubEvent): string;
  /** Closing events (usage, stop, terminators). Called once, also after an error event. */
  end(): string;
}

/** Context a codec needs beyond the body. */
export interface CodecContext {
  /** The model as the gateway routes it (Gemini takes it from the URL, not the body). */
  model: string;
  stream: boolean;
  /** The gateway's request id, for ids the codec must invent. */
  requestId: string;
  /**
   * The client asked for token usage at the end of its stream (OpenAI chat's stream_options.include_usage);
   * the chat stream encoder sends its `choices: []` usage chunk only then. Other formats always report usage.
   */
  includeUsage?: boolean;
  /**
   * Gemini's streamGenerateContent without `?alt=sse`: the answer is one JSON array written piece by piece
   * (`[` chunk `,\r\n` chunk ... `]`) instead of SSE frames. Only the Gemini stream encoder reads it.
   */
  jsonArray?: boolean;
  /** max_tokens to send when the request has none and the upstream format requires one (Anthropic). */
  defaultMaxTokens?: number;
  /**
   * Names of the request's custom (freeform) tools. Upstreams of other formats call them as functions with
   * `{"input": ...}`; the Responses encoders give them back to the client as custom_tool_call items.
   */
  customTools?: string[];
}

export type { UpstreamCodec, WireCodec } from './codec.ts';
