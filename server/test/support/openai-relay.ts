import OpenAI from 'openai';
import { expect } from 'vitest';
import { perDescribe } from './describe-gateway.ts';
import { startMockUpstream } from './mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './relay-seed.ts';
import type { startServer } from './server.ts';

/** The balance of the OpenAI relay tests' user and of its token. */
export const START = 10_000_000;

/**
 * A gateway for the OpenAI endpoint tests, for one describe block (set up in its beforeAll): one channel on a
 * mock upstream that replays the recorded provider responses, serving a model of each endpoint at the built-in
 * prices, and a user with a token of START and the official client on it. The test file passes `startServer`
 * in, so that the file says it starts a gateway (scripts/test-tiers.mjs places it by that).
 */
export function openAiRelay(start: typeof startServer) {
  return perDescribe(async (closeAfter) => {
    const mock = closeAfter(await startMockUpstream());
    const server = closeAfter(await start({ env: { BATCH_UPDATE_INTERVAL: '3600' } }));
    const { ctx } = server;
    const userId = (await seedUser(ctx, { quota: START })).id;
    const token = await seedToken(ctx, { userId, remain: START });
    await seedChannel(ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-good',
      models: [
        'gpt-4.1-nano-2025-04-14',
        'gpt-4o',
        'deepseek-chat',
        'grok-3-mini',
        'mistral-small-latest',
        'text-embedding-3-small',
        'dall-e-3',
        'tts-1',
        'whisper-1',
        'omni-moderation-latest',
        'jina-reranker-v2-base-multilingual',
      ],
    });
    return {
      server,
      mock,
      userId,
      client: new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }),
      /** The usage log row of a request, by the id the gateway answered with. */
      async logOf(requestId: string | null) {
        await flushLedger(ctx);
        expect(requestId).toBeTruthy();
        return ctx.logDb.db
          .selectFrom('logs')
          .selectAll()
          .where('request_id', '=', requestId as string)
          .executeTakeFirstOrThrow();
      },
      /** The user's and the token's balances, once the ledger has written every charge. */
      async balances() {
        await flushLedger(ctx);
        const user = await ctx.db.db
          .selectFrom('users')
          .select(['quota', 'used_quota', 'request_count'])
          .where('id', '=', userId)
          .executeTakeFirstOrThrow();
        const tokenRow = await ctx.db.db
          .selectFrom('tokens')
          .select(['remain_quota', 'used_quota'])
          .where('id', '=', token.id)
          .executeTakeFirstOrThrow();
        return { user, token: tokenRow };
      },
    };
  });
}
