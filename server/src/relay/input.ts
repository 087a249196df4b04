import type { FormData } from 'undici';
import type { Usage } from './billing/quota.ts';
import type { Inspected, Mode } from './formats/openai/request.ts';

/** A request ready to send: its parsed JSON body or its multipart form, and what inspection found. */
export interface RelayInput {
  mode: Mode;
  info: Inspected;
  json?: Record<string, unknown>;
  form?: FormData;
  /** Upload size in bytes (audio), for a duration estimate when the upstream reports none. */
  uploadBytes?: number;
}

/** What one successful attempt produced, for billing. */
export interface Produced {
  usage: Usage;
  firstAt: number;
  note?: string;
}
