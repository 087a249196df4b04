import type Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { claudeCodeAsk, withModelBeta } from './cloud-betas.ts';
import { expectedQuota, type RecordedAnswer } from './fixture-answers.ts';
import { type Ask, type ClientFormat, formatClient } from './format-clients.ts';
import type { Prices } from './provider-env.ts';
import {
  type Bill,
  type Closable,
  type ProviderSuite,
  ratioOneCompletionTwo,
  streamMessage,
} from './provider-harness.ts';

/**
 * What the Bedrock and Vertex AI tests share: Claude served by a cloud, answered from the recorded Anthropic
 * answers (fixture-answers.ts), and billed at the prices those recordings are priced at by hand.
 */

/** The prices `expectedQuota` (fixture-answers.ts) assumes for recorded answers: cache reads 0.1, writes 1.25. */
export function recordedPrices(models: string[]): Prices {
  return { ...ratioOneCompletionTwo(models), cache: { read: 0.1, write: 1.25 } };
}

/**
 * The Anthropic body a cloud (Bedrock, Vertex AI) wants for `Be brief.` and one user message at max_tokens 64:
 * its own anthropic_version in the body, and no model there (the model is in the path).
 */
export function expectCloudClaudeBody(body: unknown, version: string) {
  expect(body).toMatchObject({
    anthropic_version: version,
    max_tokens: 64,
    system: [{ type: 'text', text: 'Be brief.' }],
    messages: [{ role: 'user' }],
  });
  expect(body).not.toHaveProperty('model');
}

/** The bill of a recorded answer at `recordedPrices`. */
export const billRecorded = (usage: RecordedAnswer['usage']): Bill => ({
  prompt: usage.prompt,
  completion: usage.output,
  quota: expectedQuota(usage),
});

type Suite = ProviderSuite<Closable>;

/** An Anthropic SDK message, billed at the recording, its text and usage the recording's. */
export async function billedMessage(
  t: Suite,
  body: Anthropic.MessageCreateParamsNonStreaming,
  recorded: RecordedAnswer,
  headers?: Record<string, string>,
) {
  const msg = await t.billed(billRecorded(recorded.usage), () =>
    t.anthropic().messages.create(body, { headers }),
  );
  expect(msg.content).toEqual([{ type: 'text', text: recorded.text }]);
  expect(msg.usage.input_tokens).toBe(recorded.usage.prompt);
  expect(msg.usage.output_tokens).toBe(recorded.usage.output);
  return msg;
}

/** The same streamed: the text deltas as they came and the final message are the recording's. */
export async function billedMessageStream(
  t: Suite,
  body: Anthropic.MessageStreamParams,
  recorded: RecordedAnswer,
) {
  const { message, deltas } = await t.billed(billRecorded(recorded.usage), () =>
    streamMessage(t.anthropic(), body),
  );
  expect(deltas).toBe(recorded.text);
  expect(message.content).toEqual([{ type: 'text', text: recorded.text }]);
  expect(message.usage.output_tokens).toBe(recorded.usage.output);
  return message;
}

/** A client format's question (format-clients.ts), billed at the recording, its tool calls the recording's. */
export async function billedAsk(
  t: Suite,
  format: ClientFormat,
  model: string,
  ask: Ask,
  recorded: RecordedAnswer,
) {
  const parsed = await t.billed(billRecorded(recorded.usage), () =>
    formatClient(format, t.server.url, t.apiKey).ask(model, ask),
  );
  expect(parsed.calls).toEqual(recorded.calls);
  return parsed;
}

/**
 * Claude Code's question with its beta flags, `extraBeta` and an operator's flag for the model: answered with
 * the recording and billed; structured output never reaches the cloud.
 */
export async function billedClaudeCode(
  t: Suite,
  model: string,
  extraBeta: string,
  recorded: RecordedAnswer,
  lastBody: () => unknown,
) {
  const msg = await withModelBeta(t.server.ctx, model, 'future-feature-2027-01-01', () =>
    t.billed(billRecorded(recorded.usage), () => claudeCodeAsk(t.anthropic(), model, extraBeta)),
  );
  expect(msg.content).toEqual([{ type: 'text', text: recorded.text }]);
  expect(lastBody()).not.toHaveProperty('output_format');
}
