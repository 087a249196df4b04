import type { OptionStore } from '../../../modules/options/store.ts';
import type { Caller } from '../../admit/auth.ts';
import type { RelayInput } from '../../admit/relay-input.ts';
import { codecFor } from '../../formats/codecs.ts';

/** The most fallback models one request tries after its own. */
export const MAX_FALLBACKS = 5;

const names = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((m): m is string => typeof m === 'string' && m.length > 0) : [];

/**
 * The models a request goes to, in order, when every channel of its model fails: the client's own list
 * (`models`, as OpenRouter takes it) where the operator allows it, else the operator's list for the caller's
 * group and model (`model_fallbacks.groups`), else for the model (`model_fallbacks.models`). The requested
 * model and repeats are left out.
 */
export function fallbackChain(
  options: OptionStore,
  caller: Caller,
  model: string,
  clientModels: string[] | undefined,
): string[] {
  let list: string[] = [];
  if (clientModels && options.bool('model_fallbacks.client_enabled')) list = clientModels;
  else {
    const byGroup = options.json<Record<string, Record<string, unknown>>>('model_fallbacks.groups');
    const groupList = byGroup?.[caller.group]?.[model];
    list =
      groupList !== undefined
        ? names(groupList)
        : names(options.json<Record<string, unknown>>('model_fallbacks.models')?.[model]);
  }
  const out: string[] = [];
  for (const m of list) if (m !== model && !out.includes(m) && out.length < MAX_FALLBACKS) out.push(m);
  return out;
}

/**
 * Takes the client's `models` list out of the body (no upstream knows the field) and returns it; undefined when
 * the body has none.
 */
export function takeClientModels(input: RelayInput): string[] | undefined {
  const json = input.json;
  if (!json || !Object.hasOwn(json, 'models')) return undefined;
  const list = names(json.models);
  delete json.models;
  return list;
}

/** The same request for another model: the model in the body (but Gemini's, named in the URL) and the hub. */
export function inputFor(input: RelayInput, model: string): RelayInput {
  const json = input.json && !codecFor(input.format).modelInUrl ? { ...input.json, model } : input.json;
  return {
    ...input,
    info: { ...input.info, model },
    json,
    hub: input.hub && { ...input.hub, model },
  };
}
