import type { OptionMap } from './api.ts';
import type { FieldDef } from './fields.ts';
import { OptionSection } from './OptionSection.tsx';

const budget = (key: string): FieldDef => ({
  key,
  kind: 'number',
  min: 0.1,
  max: 1,
  step: 0.1,
  help: 'settings.help.budget',
});

const GLOBAL: FieldDef[] = [
  { key: 'global.pass_through_request_enabled', kind: 'switch', help: 'settings.help.passThrough' },
  {
    key: 'global.drop_unsupported_hosted_tools_enabled',
    kind: 'switch',
    help: 'settings.help.dropHostedTools',
  },
  {
    key: 'global.web_search_price_per_1k',
    kind: 'number',
    min: 0,
    step: 1,
    float: true,
    help: 'settings.help.webSearchPrice',
  },
  { key: 'general_setting.ping_interval_enabled', kind: 'switch' },
  { key: 'general_setting.ping_interval_seconds', kind: 'number', min: 1 },
];
const RESPONSE_CACHE: FieldDef[] = [
  { key: 'response_cache.groups', kind: 'tags', help: 'settings.help.responseCacheGroups', span: 12 },
  {
    key: 'response_cache.request_header_enabled',
    kind: 'switch',
    help: 'settings.help.responseCacheHeader',
    span: 12,
  },
  { key: 'response_cache.ttl_seconds', kind: 'number', min: 1 },
  { key: 'response_cache.max_mb', kind: 'number', min: 1, help: 'settings.help.responseCacheCap' },
  {
    key: 'response_cache.hit_ratio',
    kind: 'number',
    min: 0,
    max: 1,
    step: 0.05,
    float: true,
    help: 'settings.help.responseCacheRatio',
  },
  {
    key: 'response_cache.shared_across_users',
    kind: 'switch',
    help: 'settings.help.responseCacheShared',
    span: 12,
  },
  { key: 'response_cache.multiple_choices_enabled', kind: 'switch', span: 12 },
];
const FALLBACKS: FieldDef[] = [
  { key: 'model_fallbacks.models', kind: 'json', span: 12, help: 'settings.help.fallbackModels' },
  { key: 'model_fallbacks.groups', kind: 'json', span: 12, help: 'settings.help.fallbackGroups' },
  { key: 'model_fallbacks.client_enabled', kind: 'switch', span: 24, help: 'settings.help.fallbackClient' },
];
const GEMINI: FieldDef[] = [
  { key: 'gemini.safety_settings', kind: 'json', span: 12 },
  { key: 'gemini.version_settings', kind: 'json', span: 12 },
  { key: 'gemini.supported_imagine_models', kind: 'json' },
  { key: 'gemini.thinking_adapter_enabled', kind: 'switch', span: 12 },
  { ...budget('gemini.thinking_adapter_budget_tokens_percentage'), span: 12 },
];
const CLAUDE: FieldDef[] = [
  { key: 'claude.model_headers_settings', kind: 'json', span: 12 },
  { key: 'claude.default_max_tokens', kind: 'json', span: 12 },
  { key: 'claude.thinking_adapter_enabled', kind: 'switch', span: 12 },
  { ...budget('claude.thinking_adapter_budget_tokens_percentage'), span: 12 },
];

/** Model-related settings: global pass-through and keep-alive, the response cache, model fallbacks, Gemini and Claude options. */
export function ModelsTab({ options }: { options: OptionMap }) {
  return (
    <>
      <OptionSection title="settings.section.global" fields={GLOBAL} options={options} />
      <OptionSection title="settings.section.responseCache" fields={RESPONSE_CACHE} options={options} />
      <OptionSection title="settings.section.modelFallbacks" fields={FALLBACKS} options={options} />
      <OptionSection title="settings.section.gemini" fields={GEMINI} options={options} />
      <OptionSection title="settings.section.claude" fields={CLAUDE} options={options} />
    </>
  );
}
