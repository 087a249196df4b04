/**
 * Requests and tokens per minute. A token carries its own `rpm_limit` and `tpm_limit`; the option
 * GroupModelRateLimit sets them per group and model:
 *
 *   {"vip": {"*": {"rpm": 600, "tpm": 200000}, "gpt-4o": {"tpm": 30000, "scope": "group"}}}
 *
 * `"*"` counts every model of the group together, a named model only itself; a request must pass every entry
 * that names its group and model. `scope` "user" (the default) gives each user of the group the limit,
 * "group" makes the group's users share it. 0 or a missing number means no limit, never "refuse everything".
 */
export const RATE_LIMIT_MAX = 1_000_000_000;
export const RATE_LIMIT_SCOPES = ['user', 'group'] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];
/** The entry of GroupModelRateLimit that applies to every model of its group. */
export const ANY_MODEL = '*';

export interface ModelRateLimitEntry {
  rpm?: number;
  tpm?: number;
  scope?: RateLimitScope;
}
export type GroupModelRateLimits = Record<string, Record<string, ModelRateLimitEntry>>;

/** Why a per-minute limit is refused (`name` says which), or undefined when it is a whole number in range. */
export function rateLimitProblem(name: string, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return `${name} must be a whole number`;
  if (value < 0) return `${name} must be 0 (no limit) or more`;
  if (value > RATE_LIMIT_MAX) return `${name} must be at most ${RATE_LIMIT_MAX}`;
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Why a parsed GroupModelRateLimit value is refused, or undefined when it is fine. */
export function groupModelRateLimitProblem(value: unknown): string | undefined {
  if (!isObject(value))
    return 'expected a JSON object of group to {model or "*": {"rpm": n, "tpm": n, "scope": "user" | "group"}}';
  for (const [group, models] of Object.entries(value)) {
    if (!group.trim()) return 'a group name must not be empty';
    if (!isObject(models)) return `group ${group}: expected an object of model (or "*") to limits`;
    for (const [model, limit] of Object.entries(models)) {
      const where = `group ${group}, model ${model}`;
      if (!model.trim()) return `group ${group}: a model name must not be empty`;
      if (!isObject(limit)) return `${where}: expected {"rpm": n, "tpm": n}`;
      for (const [key, v] of Object.entries(limit)) {
        if (key === 'rpm' || key === 'tpm') {
          const problem = rateLimitProblem(key, v);
          if (problem) return `${where}: ${problem}`;
        } else if (key === 'scope') {
          if (!(RATE_LIMIT_SCOPES as readonly unknown[]).includes(v))
            return `${where}: scope must be "user" or "group"`;
        } else return `${where}: unknown field ${key} (use rpm, tpm and scope)`;
      }
    }
  }
  return undefined;
}
