import type { ModelListing } from '../codec.ts';

/** A model in Google's list shape. */
const geminiModel = (id: string) => ({
  name: `models/${id}`,
  version: '001',
  displayName: id,
  supportedGenerationMethods: /embed/i.test(id)
    ? ['embedContent', 'batchEmbedContents']
    : ['generateContent', 'streamGenerateContent', 'countTokens'],
});

/** Google's model list (`{models: [...]}`) and model object. */
export const geminiModels: ModelListing = {
  list: (ids) => ({ models: ids.map(geminiModel) }),
  one: geminiModel,
};
