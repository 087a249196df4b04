import { ANY_MODEL, type GroupModelRateLimits, RATE_LIMIT_MAX } from '@modelgate/shared';
import type { OptionStore } from '../../../modules/options/store.ts';
import type { Caller } from '../auth.ts';
import type { WindowLimit } from './windows.ts';

/** A cap as stored; anything that is not a whole number in range (an old or hand-edited value) is no limit. */
const cap = (v: unknown): number =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= RATE_LIMIT_MAX ? v : 0;

/**
 * The windows a request of `caller` for `model` is counted in: the token's own limits, then the entries of
 * GroupModelRateLimit for the caller's group naming the model and "*". Entries with no cap are left out, so a
 * caller without limits costs nothing more.
 */
export function windowsFor(options: OptionStore, caller: Caller, model: string): WindowLimit[] {
  const out: WindowLimit[] = [];
  const token = caller.token;
  if (token && (token.rpmLimit > 0 || token.tpmLimit > 0))
    out.push({ key: `t:${token.id}`, rpm: token.rpmLimit, tpm: token.tpmLimit, label: 'this API key' });
  const all = options.json<GroupModelRateLimits | null>('GroupModelRateLimit');
  const models =
    all && typeof all === 'object' && Object.hasOwn(all, caller.group) ? all[caller.group] : null;
  if (!models || typeof models !== 'object') return out;
  for (const name of model === ANY_MODEL ? [model] : [model, ANY_MODEL]) {
    const entry = Object.hasOwn(models, name) ? models[name] : null;
    if (!entry || typeof entry !== 'object') continue;
    const rpm = cap(entry.rpm);
    const tpm = cap(entry.tpm);
    if (!rpm && !tpm) continue;
    const shared = entry.scope === 'group';
    const what = name === ANY_MODEL ? 'all models' : name;
    out.push({
      key: `g:${JSON.stringify([caller.group, name, shared ? 0 : caller.user.id])}`,
      rpm,
      tpm,
      label: `group ${caller.group}, ${what}, ${shared ? 'shared by the group' : 'per user'}`,
    });
  }
  return out;
}
