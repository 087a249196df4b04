import { LogType } from '@modelgate/shared';
import type { Caller } from '../admit/auth.ts';
import type { RelayInput } from '../admit/relay-input.ts';
import type { RelayRequest } from '../http/exchange.ts';
import { RelayError } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { chargeOf, subjectOf, usageLogRow } from '../settle/usage-log.ts';
import { AnswerGuard, BLOCKED_CODE } from './answer.ts';
import { applyMasks, matchersFor, scan } from './matchers.ts';
import { moderationFires } from './moderation.ts';
import type { GuardrailPolicy } from './policy.ts';
import { editHubText, editPromptText } from './prompt-text.ts';
import { policyFor } from './resolve.ts';

/**
 * The guardrails' prompt side, run before any hold: blocking rules refuse the request (400 in the caller's
 * protocol, nothing sent upstream, nothing charged, an error log row naming the rule), mask rules rewrite the
 * prompt in the request as it will be sent, moderation rules ask their channel. Leaves on `input` the factory
 * of the answer side for each attempt.
 */
export function guardPrompt(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
): Promise<void> | undefined {
  const policy = policyFor(state.ctx, caller);
  // Nothing to do, and no promise on the request path, for a caller no policy applies to.
  if (!policy || !input.json) return undefined;
  return guardWith(state, req, caller, input, policy, input.json);
}

async function guardWith(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
  policy: GuardrailPolicy,
  body: Record<string, unknown>,
): Promise<void> {
  const words = () => state.sensitive.words();
  const matchers = matchersFor(policy, 'prompt', words);
  const texts: string[] = [];
  editPromptText(body, (t) => {
    texts.push(t);
    return t;
  });
  // Gemini embeddings: their texts were read out of the body already.
  if (input.embedTexts) texts.push(...input.embedTexts);
  let masked = false;
  for (const text of texts) {
    const { hits, block } = scan(text, matchers);
    if (block) refuse(state, req, caller, input, policy, block.rule);
    if (hits.length) masked = true;
  }
  for (const rule of policy.rules)
    if (rule.type === 'moderation' && (await moderationFires(state, rule, texts.join('\n'))))
      refuse(state, req, caller, input, policy, rule.id);
  if (masked) {
    const mask = (t: string) => applyMasks(t, scan(t, matchers).hits);
    // A copy: the parsed body is tied to the client's bytes, which would otherwise go upstream unchanged.
    const json = structuredClone(body);
    editPromptText(json, mask);
    input.json = json;
    if (input.hub) editHubText(input.hub, mask);
    if (input.embedTexts) input.embedTexts = input.embedTexts.map(mask);
  }
  const answer = matchersFor(policy, 'answer', words);
  const logRefusal = (rule: string) => {
    req.log.info({ guardrail: rule, policy: policy.name }, 'guardrail blocked the answer');
    logBlock(state, req, caller, input, { rule, policy: policy.name, side: 'answer' });
  };
  if (answer.length) input.answerGuard = () => new AnswerGuard(answer, policy.window, logRefusal);
}

function refuse(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
  policy: GuardrailPolicy,
  rule: string,
): never {
  req.log.info({ guardrail: rule, policy: policy.name }, 'guardrail blocked the prompt');
  logBlock(state, req, caller, input, { rule, policy: policy.name, side: 'prompt' });
  throw new RelayError(
    400,
    `the request was refused by guardrail rule ${rule}`,
    'invalid_request_error',
    BLOCKED_CODE,
  );
}

/** An error row in the usage log naming the rule that fired (never the text), charging nothing. */
export function logBlock(
  state: RelayState,
  req: RelayRequest,
  caller: Caller,
  input: RelayInput,
  guardrail: { rule: string; policy: string; side: 'prompt' | 'answer' },
): void {
  const outcome = {
    type: LogType.Error,
    content: `guardrail ${guardrail.rule} blocked the ${guardrail.side}`,
    other: { guardrail },
  };
  state.writer.push(
    chargeOf(caller, outcome, false, usageLogRow(subjectOf({ caller, input, req }), outcome)),
  );
}
