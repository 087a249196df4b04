import { createHash } from 'node:crypto';
import type { Caller } from '../admit/auth.ts';
import type { RelayInput } from '../admit/relay-input.ts';

/** Body fields that name the caller or steer the provider's own caching, not the answer: left out of the key. */
const IGNORED = new Set(['stream', 'user', 'metadata', 'safety_identifier', 'prompt_cache_key', 'store']);

/** A JSON value with every object's keys in sorted order, so key order in the client's body does not matter. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj).sort()) out[k] = obj[k];
  return out;
}

/**
 * The cache key of a request: a hash of the caller's format, the operation and its wire shape (stream, Gemini's
 * JSON-array stream, batch embeddings), the model asked for, who may read the entry (the user, or everyone when
 * the operator shares entries) and the body with sorted keys, minus the fields in IGNORED. What is stored is
 * the answer as the caller's format wrote it, so the format and the stream flag are part of the key.
 */
export function cacheKey(input: RelayInput, caller: Caller, shared: boolean): string {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.json ?? {})) if (!IGNORED.has(k)) body[k] = v;
  const head = [
    input.format,
    input.mode,
    input.info.stream ? 'stream' : 'json',
    input.jsonArray ? 'array' : '',
    input.embedBatch ? 'batch' : '',
    input.info.model,
    shared ? '*' : String(caller.user.id),
  ].join('\n');
  return createHash('sha256')
    .update(head)
    .update('\n')
    .update(JSON.stringify(body, sortedKeys))
    .digest('hex');
}
