import type { ChannelEntry } from '../../table-cache/channels.ts';
import { geminiAdapter } from '../gemini/index.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

/** What PaLM model names are served by now that Google has shut the PaLM API down (2024-08-15). */
export const PALM_CHAT_SUCCESSOR = 'gemini-2.0-flash';
export const PALM_EMBEDDING_SUCCESSOR = 'gemini-embedding-001';

/** A PaLM model name (`chat-bison-001`, `text-bison-001`, `embedding-gecko-001`...) as its Gemini successor. */
export function geminiModelOf(model: string): string {
  const name = model.replace(/^models\//, '');
  if (/^embedding-gecko/i.test(name)) return PALM_EMBEDDING_SUCCESSOR;
  if (/bison|^palm/i.test(name)) return PALM_CHAT_SUCCESSOR;
  return model;
}

const onGemini = (call: UpstreamCall): UpstreamCall => ({ ...call, model: geminiModelOf(call.model) });

/**
 * Google PaLM2 (type 11, deprecated): the v1beta2 PaLM API is gone, so these channels are Gemini channels on
 * the same host with the same key. PaLM model names go to their Gemini successor; the channel's model mapping
 * applies first, so a mapping to any Gemini model overrides the choice.
 */
export const palmAdapter: ProviderAdapter = {
  ...geminiAdapter,
  name: 'palm',
  url: (ch: ChannelEntry, call: UpstreamCall) => geminiAdapter.url(ch, onGemini(call)),
  prepareBody(body, ch, call) {
    const model = geminiModelOf(call.model);
    let edited = geminiAdapter.prepareBody?.(body, ch, onGemini(call)) ?? false;
    // Batch embeddings name the model in every request too, and Google refuses one unlike the URL's.
    if (model !== call.model && Array.isArray(body.requests)) {
      for (const r of body.requests) if (r && typeof r === 'object') r.model = `models/${model}`;
      edited = true;
    }
    return edited;
  },
};
