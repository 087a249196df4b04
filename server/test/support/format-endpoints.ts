import { ChannelType } from '@modelgate/shared';
import { perDescribe } from './describe-gateway.ts';
import { startFormatsMock } from './mock-formats.ts';
import { startMockUpstream } from './mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './relay-seed.ts';
import type { startServer } from './server.ts';

/** The prices of the format endpoint tests' models. */
const RATIOS = { 'claude-x': 1.5, 'gemini-x': 0.15, 'gemini-embedding-001': 0.075 };

export const jsonOf = (r: Response): Promise<any> => r.json();

/**
 * A gateway for the format endpoint tests, for one describe block (set up in its beforeAll): an Anthropic
 * channel (claude-x) and a Gemini one (gemini-x, gemini-embedding-001) on the format mocks, an OpenAI one
 * (text-embedding-3-small) on the chat mock, and a funded token, `key`. The test file passes `startServer` in,
 * so that the file says it starts a gateway (scripts/test-tiers.mjs places it by that).
 */
export function formatEndpoints(start: typeof startServer) {
  return perDescribe(async (closeAfter) => {
    const mock = closeAfter(await startFormatsMock());
    const server = closeAfter(await start({ env: { BATCH_UPDATE_INTERVAL: '3600' } }));
    const { ctx } = server;
    const user = await seedUser(ctx, { quota: 10_000_000 });
    const key = (await seedToken(ctx, { userId: user.id, remain: 10_000_000 })).apiKey;
    await ctx.options.set('ModelRatio', JSON.stringify(RATIOS));
    const claude = (model: string) =>
      seedChannel(ctx, {
        type: ChannelType.Anthropic,
        baseUrl: mock.url,
        key: 'sk-ant-mock',
        models: [model],
      });
    await claude('claude-x');
    await seedChannel(ctx, {
      type: ChannelType.Gemini,
      baseUrl: mock.url,
      key: 'gm-mock',
      models: ['gemini-x', 'gemini-embedding-001'],
    });
    const chatMock = closeAfter(await startMockUpstream());
    await seedChannel(ctx, {
      baseUrl: chatMock.url,
      key: 'sk-upstream-good',
      models: ['text-embedding-3-small'],
    });
    return {
      server,
      mock,
      key,
      /** A POST of `body` (sent as is when a string) with `headers`, and no key unless they carry one. */
      post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      /** Every usage log row's id, once the ledger has written them. */
      async logRows() {
        await flushLedger(ctx);
        return ctx.logDb.db.selectFrom('logs').select('id').where('type', '=', 2).execute();
      },
      /** Another Anthropic channel, for `model` alone, priced as claude-x (the price options keep only it besides). */
      async addClaude(model: string) {
        await ctx.options.set('ModelRatio', JSON.stringify({ ...RATIOS, [model]: 1.5 }));
        await claude(model);
      },
    };
  });
}
