import type { AppContext } from '../../context.ts';
import type { Caller } from '../admit/auth.ts';
import type { GuardrailPolicy } from './policy.ts';
import { readPolicies } from './policy.ts';

export const POLICIES_OPTION = 'guardrails.policies';
export const GROUP_POLICIES_OPTION = 'guardrails.group_policies';
export const TOKEN_POLICIES_OPTION = 'guardrails.token_policies';
/** The group entry every group without its own falls back to. */
export const ANY_GROUP = '*';

interface Parsed {
  policies: Map<string, GuardrailPolicy>;
  groups: Record<string, string>;
  tokens: Record<string, string>;
}

const parsedByCtx = new WeakMap<AppContext, { value: Parsed }>();

function parse(ctx: AppContext): Parsed {
  const read = (key: string): Record<string, string> => {
    try {
      return JSON.parse(ctx.options.get(key));
    } catch {
      return {};
    }
  };
  let policies = new Map<string, GuardrailPolicy>();
  try {
    policies = readPolicies(ctx.options.get(POLICIES_OPTION));
  } catch {
    // Saved values were checked on the way in; a value that fails now (an older build's) turns the policies off.
  }
  return { policies, groups: read(GROUP_POLICIES_OPTION), tokens: read(TOKEN_POLICIES_OPTION) };
}

function parsedOf(ctx: AppContext): Parsed {
  let slot = parsedByCtx.get(ctx);
  if (!slot) {
    const s = { value: parse(ctx) };
    ctx.options.onChange((key) => {
      if (key.startsWith('guardrails.')) s.value = parse(ctx);
    });
    parsedByCtx.set(ctx, s);
    slot = s;
  }
  return slot.value;
}

/**
 * The policy for a caller: the token's own assignment (by token id; an empty name turns guardrails off for
 * it), else its group's, else the `*` entry's. Undefined = no checks.
 */
export function policyFor(ctx: AppContext, caller: Caller): GuardrailPolicy | undefined {
  const p = parsedOf(ctx);
  if (p.policies.size === 0) return undefined;
  const byToken = caller.token ? p.tokens[String(caller.token.id)] : undefined;
  const name = byToken ?? p.groups[caller.group] ?? p.groups[ANY_GROUP];
  return name ? p.policies.get(name) : undefined;
}
