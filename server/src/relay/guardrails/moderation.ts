import { CallAbort } from '../call/call-abort.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import type { GuardrailRule } from './policy.ts';

type ModerationRule = Extract<GuardrailRule, { type: 'moderation' }>;

const unavailable = (why: string) =>
  new RelayError(
    503,
    `the moderation check is unavailable: ${why}`,
    'new_api_error',
    'guardrail_unavailable',
  );

/**
 * Asks the rule's moderation channel (an ordinary OpenAI-compatible channel, named by its id, serving
 * `/v1/moderations`) about the prompt. Fires when a category's score reaches its threshold; with no thresholds,
 * when the upstream flags the input. A channel that cannot answer refuses the request (fails closed).
 */
export async function moderationFires(
  state: RelayState,
  rule: ModerationRule,
  text: string,
): Promise<boolean> {
  const ch = state.channels.get(rule.channelId);
  if (!ch) throw unavailable(`channel #${rule.channelId} does not exist or is disabled`);
  const base = (ch.baseUrl || 'https://api.openai.com').replace(/\/+$/, '');
  const abort = new CallAbort();
  const res = await state.upstream.send({
    url: `${base}/v1/moderations`,
    headers: { authorization: `Bearer ${ch.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: rule.model, input: text }),
    stream: false,
    signal: abort,
    proxy: ch.proxy,
  });
  const body = await res.body.text().catch(() => '');
  if (res.statusCode < 200 || res.statusCode >= 300)
    throw unavailable(`the channel answered ${res.statusCode}`);
  let results: Array<{ flagged?: boolean; category_scores?: Record<string, number> }>;
  try {
    results = JSON.parse(body).results;
    if (!Array.isArray(results)) throw new Error('no results');
  } catch {
    throw unavailable('the channel sent no moderation results');
  }
  const thresholds = Object.entries(rule.thresholds);
  return results.some((r) =>
    thresholds.length
      ? thresholds.some(([category, min]) => Number(r.category_scores?.[category] ?? 0) >= min)
      : r.flagged === true,
  );
}
