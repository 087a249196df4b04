import type { FormData } from 'undici';
import type { Usage } from '../billing/quota.ts';
import type { HubRequest, WireFormat } from '../formats/hub.ts';
import type { AnswerGuard } from '../guardrails/answer.ts';
import type { Inspected, Mode } from './inspect-request.ts';

/** A request ready to send: its parsed JSON body or its multipart form, and what inspection found. */
export interface RelayInput {
  mode: Mode;
  /** The client's wire format (OpenAI's for every endpoint but messages, responses and Gemini's). */
  format: WireFormat;
  /**
   * The request in the gateway's representation: decoded (and so validated) up front for the Anthropic,
   * Gemini and Responses endpoints; for OpenAI chat only when a channel of another format serves it.
   */
  hub?: HubRequest;
  /** Gemini streamGenerateContent without alt=sse: the client reads one JSON array. */
  jsonArray?: boolean;
  /** Gemini embeddings: the client called batchEmbedContents (else embedContent). */
  embedBatch?: boolean;
  /** Gemini embeddings: the texts to embed. */
  embedTexts?: string[];
  info: Inspected;
  json?: Record<string, unknown>;
  form?: FormData;
  /** Upload size in bytes (audio), for a duration estimate when the upstream reports none. */
  uploadBytes?: number;
  /** The caller's guardrail policy reads the answer: a fresh guard for each attempt (relay/guardrails). */
  answerGuard?: () => AnswerGuard;
  /** The model the client asked for, when this is a run for one of its fallback models (relay/route/fallbacks/). */
  fallbackFrom?: string;
}

/** What one successful attempt produced, for billing. */
export interface Produced {
  usage: Usage;
  firstAt: number;
  /** Why the model stopped (the hub's word), when the answer said so: for traces. */
  finish?: string;
  note?: string;
  /** The charge, when the caller priced the usage itself (realtime audio); else the text or image formula's. */
  quota?: number;
  /** The upstream cost, when the caller priced the usage itself (with the quota above). */
  cost?: number;
  /** Extra fields for the log row's `other` (audio counts and ratios). */
  other?: Record<string, unknown>;
}
