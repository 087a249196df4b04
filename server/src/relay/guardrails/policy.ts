/**
 * Guardrail policies as the operator writes them (options `guardrails.policies`, `guardrails.group_policies`,
 * `guardrails.token_policies`), and the check that refuses a malformed one before it is saved.
 */

export const PII_KINDS = ['email', 'phone', 'card', 'national_id', 'api_key'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

export type RuleSide = 'prompt' | 'answer' | 'both';
export type RuleMode = 'block' | 'mask';

interface RuleBase {
  /** Named in refusals and logs (never the text that matched). */
  id: string;
  /** Which text the rule reads; moderation reads the prompt only. */
  on: RuleSide;
  mode: RuleMode;
}

export type GuardrailRule =
  /** The SensitiveWords list the gateway already keeps. */
  | (RuleBase & { type: 'words' })
  | (RuleBase & { type: 'regex'; pattern: string; flags: string; replacement: string })
  | (RuleBase & { type: 'pii'; detectors: PiiKind[] })
  | (RuleBase & { type: 'moderation'; channelId: number; model: string; thresholds: Record<string, number> });

export interface GuardrailPolicy {
  name: string;
  rules: GuardrailRule[];
  /** Characters of a streamed answer held back at most, so a match split across chunks is still caught. */
  window: number;
}

export const DEFAULT_WINDOW = 32;
export const MIN_WINDOW = 8;
export const MAX_WINDOW = 1024;
const ID = /^[A-Za-z0-9_.-]{1,64}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Reads one rule; throws an Error naming what is wrong. */
function readRule(raw: unknown, where: string): GuardrailRule {
  if (!isObject(raw)) throw new Error(`${where} must be an object`);
  const id = raw.id;
  if (typeof id !== 'string' || !ID.test(id))
    throw new Error(`${where}.id must be 1-64 letters, digits, dots, dashes or underscores`);
  const on = raw.on ?? 'both';
  if (on !== 'prompt' && on !== 'answer' && on !== 'both')
    throw new Error(`${where}.on must be prompt, answer or both`);
  const mode = raw.mode ?? 'block';
  if (mode !== 'block' && mode !== 'mask') throw new Error(`${where}.mode must be block or mask`);
  const base = { id, on, mode } as RuleBase;
  switch (raw.type) {
    case 'words':
      return { ...base, type: 'words' };
    case 'regex': {
      const pattern = raw.pattern;
      const flags = raw.flags ?? '';
      if (typeof pattern !== 'string' || !pattern)
        throw new Error(`${where}.pattern must be a regular expression`);
      if (typeof flags !== 'string' || !/^[imsu]*$/.test(flags))
        throw new Error(`${where}.flags may only hold i, m, s and u`);
      try {
        new RegExp(pattern, `${flags}g`);
      } catch (err) {
        throw new Error(`${where}.pattern is not a valid regular expression: ${(err as Error).message}`);
      }
      const replacement = raw.replacement ?? '[REDACTED]';
      if (typeof replacement !== 'string') throw new Error(`${where}.replacement must be a string`);
      return { ...base, type: 'regex', pattern, flags, replacement };
    }
    case 'pii': {
      const detectors = raw.detectors ?? [...PII_KINDS];
      if (!Array.isArray(detectors) || detectors.length === 0)
        throw new Error(`${where}.detectors must list some of ${PII_KINDS.join(', ')}`);
      for (const d of detectors)
        if (!PII_KINDS.includes(d as PiiKind))
          throw new Error(`${where}.detectors: ${String(d)} is not one of ${PII_KINDS.join(', ')}`);
      return { ...base, type: 'pii', detectors: [...new Set(detectors as PiiKind[])] };
    }
    case 'moderation': {
      if (on !== 'prompt' && raw.on !== undefined)
        throw new Error(`${where}: a moderation rule reads the prompt only`);
      if (mode !== 'block') throw new Error(`${where}: a moderation rule can only block`);
      const channelId = raw.channel_id;
      if (!Number.isInteger(channelId) || (channelId as number) <= 0)
        throw new Error(`${where}.channel_id must be the id of the channel serving /v1/moderations`);
      const model = raw.model ?? 'omni-moderation-latest';
      if (typeof model !== 'string' || !model) throw new Error(`${where}.model must be a model name`);
      const thresholds = raw.thresholds ?? {};
      if (!isObject(thresholds)) throw new Error(`${where}.thresholds must map a category to a score`);
      for (const [k, v] of Object.entries(thresholds))
        if (typeof v !== 'number' || !(v >= 0 && v <= 1))
          throw new Error(`${where}.thresholds.${k} must be a number from 0 to 1`);
      return {
        ...base,
        on: 'prompt',
        type: 'moderation',
        channelId: channelId as number,
        model,
        thresholds: thresholds as Record<string, number>,
      };
    }
    default:
      throw new Error(`${where}.type must be words, regex, pii or moderation`);
  }
}

/** Reads `guardrails.policies`: a JSON object of policy name to `{rules, window}`. Throws on a bad value. */
export function readPolicies(value: string): Map<string, GuardrailPolicy> {
  const raw = JSON.parse(value);
  if (!isObject(raw)) throw new Error('expected a JSON object of policy name to policy');
  const out = new Map<string, GuardrailPolicy>();
  for (const [name, p] of Object.entries(raw)) {
    if (!ID.test(name))
      throw new Error(`policy name ${name} must be 1-64 letters, digits, dots, dashes or underscores`);
    if (!isObject(p) || !Array.isArray(p.rules))
      throw new Error(`policy ${name} must be an object with a rules list`);
    const window = p.window ?? DEFAULT_WINDOW;
    if (!Number.isInteger(window) || (window as number) < MIN_WINDOW || (window as number) > MAX_WINDOW)
      throw new Error(`policy ${name}: window must be a whole number from ${MIN_WINDOW} to ${MAX_WINDOW}`);
    const rules = p.rules.map((r, i) => readRule(r, `policy ${name} rules[${i}]`));
    const ids = new Set<string>();
    for (const r of rules) {
      if (ids.has(r.id)) throw new Error(`policy ${name}: rule id ${r.id} is used twice`);
      ids.add(r.id);
    }
    out.set(name, { name, rules, window: window as number });
  }
  return out;
}

/** The problem with a `guardrails.policies` value, or undefined when it is fine. */
export function policiesProblem(value: string): string | undefined {
  try {
    readPolicies(value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The problem with a group or token to policy-name map, or undefined when it is fine. */
export function assignmentProblem(value: string): string | undefined {
  const raw = JSON.parse(value);
  if (!isObject(raw)) return 'expected a JSON object of name to policy name';
  for (const [k, v] of Object.entries(raw))
    if (typeof v !== 'string') return `the policy of ${k} must be a string`;
  return undefined;
}
