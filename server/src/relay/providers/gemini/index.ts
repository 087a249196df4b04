import { channelTypeInfo } from '@modelgate/shared';
import { field } from '../../formats/gemini/check.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { accountBase, listModelsAt } from '../model-list.ts';
import type { ProviderAdapter, UpstreamCall } from '../types.ts';

/** The harm categories `gemini.safety_settings` sets a threshold for. */
const HARM_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
];

/**
 * Google Gemini (type 24): `/{version}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`,
 * with the key in `x-goog-api-key`. The API version per model comes from `gemini.version_settings`, and a
 * request without safety settings gets those of `gemini.safety_settings`.
 */
export const geminiAdapter: ProviderAdapter = {
  name: 'gemini',
  formatFor: () => 'gemini',
  modes: new Set(['embeddings']),
  embeddingFormat: 'gemini',
  url(ch: ChannelEntry, call: UpstreamCall) {
    const base =
      ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://generativelanguage.googleapis.com';
    const versions = call.options.json<Record<string, string>>('gemini.version_settings') ?? {};
    const version = versions[call.model] || versions.default || 'v1beta';
    const action =
      call.mode === 'embeddings'
        ? (call.geminiAction ?? 'batchEmbedContents')
        : call.stream
          ? 'streamGenerateContent?alt=sse'
          : 'generateContent';
    return `${base}/${version}/models/${encodeURIComponent(call.model)}:${action}`;
  },
  headers: (ch) => ({ 'x-goog-api-key': ch.key }),
  streamUsage: () => true,
  listModels: (ch, http) =>
    listModelsAt(
      http,
      `${accountBase(ch, 'https://generativelanguage.googleapis.com')}/v1beta/models?pageSize=1000`,
      { 'x-goog-api-key': ch.key },
    ),
  prepareBody(body, _ch, call) {
    // A client's own settings are kept, under either of the names Google reads them by.
    if (call.mode !== 'chat' || field(body, 'safetySettings') !== undefined) return false;
    const rules = call.options.json<Record<string, string>>('gemini.safety_settings') ?? {};
    body.safetySettings = HARM_CATEGORIES.map((category) => ({
      category,
      threshold: rules[category] || rules.default || 'OFF',
    }));
    return true;
  },
};
