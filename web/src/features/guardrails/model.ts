/**
 * The guardrail policies (option `guardrails.policies`) as the console form holds them, and back. The server
 * checks the saved value (relay/guardrails/policy.ts); the form only shapes it.
 */
export const RULE_TYPES = ['words', 'regex', 'pii', 'moderation'] as const;
export const PII_KINDS = ['email', 'phone', 'card', 'national_id', 'api_key'] as const;
export const SIDES = ['prompt', 'answer', 'both'] as const;
export const MODES = ['block', 'mask'] as const;
/** OpenAI's moderation categories, offered in the threshold list (others may be typed). */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];
export const DEFAULT_WINDOW = 32;

export interface RuleDraft {
  id: string;
  type: (typeof RULE_TYPES)[number];
  on: (typeof SIDES)[number];
  mode: (typeof MODES)[number];
  pattern?: string;
  ignoreCase?: boolean;
  replacement?: string;
  detectors?: string[];
  channel_id?: number;
  model?: string;
  thresholds?: Array<{ category: string; score: number }>;
}

export interface PolicyDraft {
  name: string;
  window: number;
  rules: RuleDraft[];
}

type Raw = Record<string, any>;

/** The saved JSON as form values; a value that does not parse shows as no policies. */
export function toDrafts(value: string | undefined): PolicyDraft[] {
  let raw: Raw;
  try {
    raw = JSON.parse(value || '{}');
  } catch {
    return [];
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return [];
  return Object.entries(raw).map(([name, p]: [string, Raw]) => ({
    name,
    window: typeof p?.window === 'number' ? p.window : DEFAULT_WINDOW,
    rules: (Array.isArray(p?.rules) ? p.rules : []).map(
      (r: Raw): RuleDraft => ({
        id: String(r.id ?? ''),
        type: r.type,
        on: r.type === 'moderation' ? 'prompt' : (r.on ?? 'both'),
        mode: r.type === 'moderation' ? 'block' : (r.mode ?? 'block'),
        pattern: r.pattern,
        ignoreCase: typeof r.flags === 'string' && r.flags.includes('i'),
        replacement: r.replacement,
        detectors: r.detectors ?? (r.type === 'pii' ? [...PII_KINDS] : undefined),
        channel_id: r.channel_id,
        model: r.model,
        thresholds: Object.entries(r.thresholds ?? {}).map(([category, score]) => ({
          category,
          score: Number(score),
        })),
      }),
    ),
  }));
}

/** Form values as the option's JSON text. */
export function fromDrafts(drafts: PolicyDraft[]): string {
  const out: Raw = {};
  for (const p of drafts ?? []) {
    out[p.name] = {
      window: p.window ?? DEFAULT_WINDOW,
      rules: (p.rules ?? []).map((r) => {
        const base: Raw = { id: r.id, type: r.type };
        if (r.type === 'moderation') {
          base.channel_id = r.channel_id;
          if (r.model) base.model = r.model;
          base.thresholds = Object.fromEntries(
            (r.thresholds ?? []).filter((t) => t?.category).map((t) => [t.category, t.score ?? 0]),
          );
          return base;
        }
        base.on = r.on;
        base.mode = r.mode;
        if (r.type === 'regex') {
          base.pattern = r.pattern ?? '';
          if (r.ignoreCase) base.flags = 'i';
          if (r.replacement) base.replacement = r.replacement;
        }
        if (r.type === 'pii') base.detectors = r.detectors ?? [];
        return base;
      }),
    };
  }
  return JSON.stringify(out);
}

/** Policy names as the group and token lists may name them. */
export const policyNames = (value: string | undefined) => toDrafts(value).map((p) => p.name);
