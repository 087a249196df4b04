/** Which of Vertex AI's publishers and APIs serves a model. */
export type Family = 'claude' | 'gemini' | 'embedding';

const EMBEDDING = /^(text-embedding-|text-multilingual-embedding-|gemini-embedding-|textembedding-gecko)/;

export function familyOf(model: string): Family {
  if (model.startsWith('claude-')) return 'claude';
  return EMBEDDING.test(model) ? 'embedding' : 'gemini';
}

/** Embedding models that take a single text per `:predict` call. */
export const oneTextPerCall = (model: string) => model.startsWith('gemini-embedding-');

/** Anthropic's model names whose Vertex id does not follow the `<name>@<date>` rule. */
const CLAUDE_IDS: Record<string, string> = {
  'claude-3-5-sonnet-20241022': 'claude-3-5-sonnet-v2@20241022',
  'claude-3-5-sonnet-latest': 'claude-3-5-sonnet-v2@20241022',
  'claude-3-5-haiku-latest': 'claude-3-5-haiku@20241022',
  'claude-3-7-sonnet-latest': 'claude-3-7-sonnet@20250219',
  'claude-3-opus-latest': 'claude-3-opus@20240229',
};

/**
 * The Vertex id of a Claude model: an id with `@` as it is, the table's exceptions, and Anthropic's dated names
 * (`claude-sonnet-4-5-20250929`) as `<name>@<date>`. Undated names (`claude-sonnet-4-5`) are Vertex aliases too.
 */
export function vertexClaudeId(model: string): string {
  if (model.includes('@')) return model;
  const known = CLAUDE_IDS[model];
  if (known) return known;
  const dated = /^(claude-.+)-(\d{8})$/.exec(model);
  return dated ? `${dated[1]}@${dated[2]}` : model;
}

const REGION = /^[a-z][a-z0-9-]{1,40}$/;

/**
 * The region of a model from the channel's `region` setting: a region name for every model, or a JSON object
 * of model -> region with `default` for the rest (as an object or its JSON text). Falls back to the channel's
 * `other` field (same forms), then `global`. Returns null when the configured value is not a region name.
 */
export function regionOf(setting: unknown, other: string, models: string[]): string | null {
  const pick = (v: unknown): string | undefined => {
    let value = v;
    if (typeof value === 'string') {
      const s = value.trim();
      if (!s) return undefined;
      if (!s.startsWith('{')) return s;
      try {
        value = JSON.parse(s);
      } catch {
        return s;
      }
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const map = value as Record<string, unknown>;
    for (const key of [...models, 'default']) {
      const r = map[key];
      if (typeof r === 'string' && r.trim()) return r.trim();
    }
    return undefined;
  };
  const region = pick(setting) ?? pick(other) ?? 'global';
  return REGION.test(region) ? region : null;
}

/** The API host of a region (global has no region prefix). */
export const originOf = (region: string) =>
  region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
