/** Checks of option values the settings page makes before saving; each returns an i18n key of the problem. */
import { groupRoutingModeProblem } from '@modelgate/shared';

const parse = (value: unknown): unknown => {
  try {
    return JSON.parse(String(value ?? ''));
  } catch {
    return undefined;
  }
};
const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** GroupRatio: {group: number >= 0}. */
export function checkGroupRatio(value: unknown): string | undefined {
  const v = parse(value);
  if (v === undefined) return undefined; // the JSON rule reports it
  if (!isObject(v) || Object.values(v).some((n) => typeof n !== 'number' || !Number.isFinite(n) || n < 0))
    return 'settings.error.groupRatio';
  return undefined;
}

/** GroupRoutingMode: {group: "weighted" | "round_robin" | "least_requests" | "cheapest"}. */
export function checkGroupRoutingMode(value: unknown): string | undefined {
  const v = parse(value);
  if (v === undefined) return undefined;
  return groupRoutingModeProblem(v) ? 'settings.error.groupRoutingMode' : undefined;
}

/** ModelRequestRateLimitGroup: {group: [max requests >= 0, max successes >= 1]}. */
export function checkRateLimitGroups(value: unknown): string | undefined {
  if (!String(value ?? '').trim()) return undefined;
  const v = parse(value);
  if (v === undefined) return undefined;
  if (!isObject(v)) return 'settings.error.rateLimitGroup';
  for (const limits of Object.values(v)) {
    if (!Array.isArray(limits) || limits.length !== 2 || !limits.every(Number.isInteger))
      return 'settings.error.rateLimitGroup';
    if (limits[0] < 0 || limits[1] < 1) return 'settings.error.rateLimitGroup';
  }
  return undefined;
}

/** A JSON map of model name -> number >= 0 (prices and ratios). */
export function checkNumberMap(value: unknown): string | undefined {
  const v = parse(value);
  if (v === undefined) return undefined;
  if (!isObject(v) || Object.values(v).some((n) => typeof n !== 'number' || !Number.isFinite(n) || n < 0))
    return 'settings.error.numberMap';
  return undefined;
}

/** E-mail domain whitelist entry: a host name like example.com. */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
