import type { AppContext } from '../../src/context.ts';
import type { ClientFormat } from './format-clients.ts';
import { flushLedger, seedToken, seedUser } from './relay-seed.ts';

/**
 * The race the money invariant is proven under: one account whose binding limit is its balance, its token's
 * quota, its daily budget or its token's daily budget; hundreds of requests at once in one client format.
 */
export type Limit = 'balance' | 'token' | 'user_budget' | 'token_budget';

export const MODEL = 'gpt-4o';
const PLENTY = 1_000_000_000;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export interface Account {
  userId: number;
  tokenId: number;
  apiKey: string;
}

/** A user and token where `limit` is the only limit that binds, at `amount`. */
export async function accountLimitedBy(ctx: AppContext, limit: Limit, amount: number): Promise<Account> {
  const user = await seedUser(ctx, { quota: limit === 'balance' ? amount : PLENTY });
  const token = await seedToken(ctx, {
    userId: user.id,
    unlimited: limit !== 'token',
    remain: limit === 'token' ? amount : 0,
  });
  if (limit === 'user_budget' || limit === 'token_budget') {
    const budget = {
      budget_quota: amount,
      budget_period: 'daily',
      budget_reset_time: '00:00',
      budget_used: 0,
      budget_reset_at: 0,
    };
    if (limit === 'user_budget')
      await ctx.db.db.updateTable('users').set(budget).where('id', '=', user.id).execute();
    else await ctx.db.db.updateTable('tokens').set(budget).where('id', '=', token.id).execute();
  }
  return { userId: user.id, tokenId: token.id, apiKey: token.apiKey };
}

/** A prompt of a few dozen to a few hundred characters, different for each request. */
const promptOf = (i: number) =>
  `Tell me about item ${i}. ${'Some context for the question. '.repeat(2 + (i % 12))}`;

/** One request in a client format's own wire form; resolves with its status and parsed body. */
export async function ask(
  baseUrl: string,
  apiKey: string,
  format: ClientFormat,
  o: { i: number; stream: boolean; image?: boolean },
): Promise<{ status: number; body: any }> {
  const text = promptOf(o.i);
  let url = `${baseUrl}/v1/chat/completions`;
  let body: unknown;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (format === 'openai') {
    headers.authorization = `Bearer ${apiKey}`;
    const content = o.image
      ? [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ]
      : text;
    body = { model: MODEL, max_tokens: 10, stream: o.stream, messages: [{ role: 'user', content }] };
  } else if (format === 'anthropic') {
    url = `${baseUrl}/v1/messages`;
    headers['x-api-key'] = apiKey;
    headers['anthropic-version'] = '2023-06-01';
    const content = o.image
      ? [
          { type: 'text', text },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ]
      : text;
    body = { model: MODEL, max_tokens: 10, stream: o.stream, messages: [{ role: 'user', content }] };
  } else if (format === 'gemini') {
    url = `${baseUrl}/v1beta/models/${MODEL}:${o.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    headers['x-goog-api-key'] = apiKey;
    const parts: unknown[] = [{ text }];
    if (o.image) parts.push({ inlineData: { mimeType: 'image/png', data: PNG } });
    body = { contents: [{ role: 'user', parts }], generationConfig: { maxOutputTokens: 10 } };
  } else {
    url = `${baseUrl}/v1/responses`;
    headers.authorization = `Bearer ${apiKey}`;
    const content: unknown[] = [{ type: 'input_text', text }];
    if (o.image) content.push({ type: 'input_image', image_url: `data:image/png;base64,${PNG}` });
    body = { model: MODEL, max_output_tokens: 16, stream: o.stream, input: [{ role: 'user', content }] };
  }
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  const raw = await res.text();
  let parsed: any = raw;
  if (res.status !== 200 || !o.stream) {
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = raw;
    }
  }
  return { status: res.status, body: parsed };
}

/** Whether a refusal is the one the client's protocol uses for a spent balance or budget. */
export function isRefusal(format: ClientFormat, limit: Limit, r: { status: number; body: any }): boolean {
  const budget = limit === 'user_budget' || limit === 'token_budget';
  if (r.status !== (budget ? 429 : 403)) return false;
  if (format === 'anthropic')
    return r.body?.type === 'error' && r.body.error?.type === (budget ? 'rate_limit_error' : 'billing_error');
  if (format === 'gemini') return r.body?.error?.status === 'RESOURCE_EXHAUSTED';
  return r.body?.error?.type === 'insufficient_quota';
}

/** The account after the race, read from the database once every instance has written what it settled. */
export async function ledgerOf(nodes: Array<{ ctx: AppContext }>, a: Account) {
  for (const n of nodes) await flushLedger(n.ctx);
  const { ctx } = nodes[0];
  const { db } = ctx.db;
  const user = await db
    .selectFrom('users')
    .select(['quota', 'used_quota', 'budget_used'])
    .where('id', '=', a.userId)
    .executeTakeFirstOrThrow();
  const token = await db
    .selectFrom('tokens')
    .select(['remain_quota', 'used_quota', 'budget_used'])
    .where('id', '=', a.tokenId)
    .executeTakeFirstOrThrow();
  const rows = await ctx.logDb.db
    .selectFrom('logs')
    .select(['quota', 'other'])
    .where('user_id', '=', a.userId)
    .where('type', '=', 2)
    .execute();
  const charges = rows.map((r) => Number(r.quota));
  return {
    user: { quota: Number(user.quota), used: Number(user.used_quota), budget: Number(user.budget_used) },
    token: {
      remain: Number(token.remain_quota),
      used: Number(token.used_quota),
      budget: Number(token.budget_used),
    },
    rows: rows.length,
    sum: charges.reduce((s, q) => s + q, 0),
    maxCharge: Math.max(0, ...charges),
    unbilled: rows.reduce((s, r) => s + Number(JSON.parse(String(r.other || '{}')).unbilled_quota ?? 0), 0),
  };
}

/** What is left of the binding limit (negative when overdrawn). */
export function leftOf(limit: Limit, amount: number, l: Awaited<ReturnType<typeof ledgerOf>>): number {
  if (limit === 'balance') return l.user.quota;
  if (limit === 'token') return l.token.remain;
  if (limit === 'user_budget') return amount - l.user.budget;
  return amount - l.token.budget;
}
