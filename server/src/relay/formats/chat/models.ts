import type { ModelListing } from '../codec.ts';

/** The `created` time every listed model shows (the gateway does not know when a model came out). */
export const MODEL_CREATED = 1626777600;

const openaiModel = (id: string, ownedBy: (id: string) => string) => ({
  id,
  object: 'model',
  created: MODEL_CREATED,
  owned_by: ownedBy(id),
});

/** OpenAI's model list: `{object: 'list', data: [model...]}`. */
export const openaiModels: ModelListing = {
  list: (ids, ownedBy) => ({ object: 'list', data: ids.map((id) => openaiModel(id, ownedBy)) }),
  one: openaiModel,
};
