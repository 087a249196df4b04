import { groupModelRateLimitProblem } from '@modelgate/shared';

/** GroupModelRateLimit as the settings page checks it before saving; returns an i18n key of the problem. */
export function checkGroupModelRateLimit(value: unknown): string | undefined {
  const text = String(value ?? '').trim();
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // the JSON rule reports it
  }
  return groupModelRateLimitProblem(parsed) ? 'rateLimits.optionInvalid' : undefined;
}
