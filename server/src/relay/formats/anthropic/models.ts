import { MODEL_CREATED } from '../chat/models.ts';
import type { ModelListing } from '../codec.ts';

const CREATED_AT = new Date(MODEL_CREATED * 1000).toISOString();

const anthropicModel = (id: string) => ({ type: 'model', id, display_name: id, created_at: CREATED_AT });

/** Anthropic's model list page (all models in one page) and model object. */
export const anthropicModels: ModelListing = {
  list: (ids) => ({
    data: ids.map(anthropicModel),
    has_more: false,
    first_id: ids[0] ?? null,
    last_id: ids[ids.length - 1] ?? null,
  }),
  one: anthropicModel,
};
