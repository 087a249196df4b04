import { channelTypeInfo } from '@modelgate/shared';
import type { AppContext } from '../../context.ts';
import type { UpstreamFailure } from './health.ts';
import { authHeaders, baseUrlOf, callUpstream, type UpstreamTarget } from './upstream.ts';

/**
 * The smallest real request a channel test sends: chat "hi" with a 10-token cap (an embedding request for
 * embedding models), in the channel's own protocol: OpenAI-compatible, Azure, Anthropic Messages, or
 * Gemini's OpenAI-compatible endpoint. Stands in until the relay's provider adapters can send one request
 * to a given channel.
 */
export const isEmbeddingModel = (m: string) => /embed|^m3e|bge-/i.test(m);

function chatBody(model: string, overrides: Record<string, unknown>) {
  const reasoning = /^(o\d|gpt-5)/.test(model);
  const limit = model.includes('gemini') ? 300 : 10;
  return {
    model,
    messages: [{ role: 'user', content: 'hi' }],
    ...(reasoning ? { max_completion_tokens: limit } : { max_tokens: limit }),
    ...overrides,
  };
}

export function testSupported(type: number): boolean {
  return !!channelTypeInfo(type)?.openai || type === 14 || type === 24;
}

export async function sendTestRequest(
  ctx: AppContext,
  target: UpstreamTarget & { other: string },
  model: string,
  overrides: Record<string, unknown>,
): Promise<{ ok: true } | { ok: false; failure: UpstreamFailure }> {
  const base = baseUrlOf(target.type, target.baseUrl);
  const headers = authHeaders(target);
  const timeoutMs = Math.max(5, ctx.config.relayTimeoutSec || 60) * 1000;
  const embedding = isEmbeddingModel(model);
  let url: string;
  let body: unknown;
  if (target.type === 14) {
    url = `${base}/v1/messages`;
    body = { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...overrides };
  } else if (target.type === 3) {
    const version = target.other || '2024-10-21';
    const deployment = model.replace(/\./g, '');
    url = `${base}/openai/deployments/${encodeURIComponent(deployment)}/${embedding ? 'embeddings' : 'chat/completions'}?api-version=${encodeURIComponent(version)}`;
    body = embedding ? { input: ['hello world'] } : chatBody(model, overrides);
  } else {
    const prefix = target.type === 24 ? '/v1beta/openai' : '/v1';
    url = `${base}${prefix}/${embedding ? 'embeddings' : 'chat/completions'}`;
    body = embedding ? { model, input: ['hello world'], ...overrides } : chatBody(model, overrides);
  }
  const reply = await callUpstream(ctx, url, { method: 'POST', headers, body, timeoutMs });
  if (!reply.ok) return { ok: false, failure: reply.failure ?? { status: reply.status } };
  const b = reply.body as { choices?: unknown[]; data?: unknown[]; content?: unknown[] };
  const answered = embedding ? Array.isArray(b.data) : Array.isArray(b.choices) || Array.isArray(b.content);
  return answered
    ? { ok: true }
    : { ok: false, failure: { status: reply.status, message: 'upstream reply has no answer in it' } };
}
