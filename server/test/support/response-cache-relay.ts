import { ChannelType } from '@modelgate/shared';
import { expect } from 'vitest';
import { perDescribe } from './describe-gateway.ts';
import { type Ask, type ClientFormat, formatClient } from './format-clients.ts';
import { startFormatsMock } from './mock-formats.ts';
import { startMockUpstream } from './mock-upstream.ts';
import { seedChannel, seedToken, seedUser } from './relay-seed.ts';
import type { startServer } from './server.ts';
import { usageRows } from './usage-rows.ts';

/**
 * The gateway of the response cache tests: mock upstreams that replay recorded answers behind a channel of each
 * upstream format (chat, Anthropic, Gemini, Responses), the cache on for the default group, and funded callers.
 */
export type Upstream = 'chat' | 'anthropic' | 'gemini' | 'responses';
export const MODEL: Record<Upstream, string> = {
  chat: 'rc-chat',
  anthropic: 'rc-claude',
  gemini: 'rc-gemini',
  responses: 'rc-gpt5',
};
export const METRICS = 'metrics-secret';
/** A chat model answered by Mistral's recordings, which have a tool call in JSON and streamed. */
export const TOOLS_CHAT = 'rc-mistral';

type Caller = { id: number; apiKey: string };

export const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({
  model: MODEL.chat,
  messages: [{ role: 'user', content }],
  ...extra,
});

/**
 * The gateway, its upstreams and three callers, for one describe block (set up in its beforeAll): alice and bob
 * of the default group, vip of a group the cache is not on for. The test file passes `startServer` in, so that
 * the file says it starts a gateway (scripts/test-tiers.mjs places it by that).
 */
export function responseCacheRelay(start: typeof startServer) {
  return perDescribe(async (closeAfter) => {
    /** The chat upstream (OpenAI's format) and the one of the other formats. */
    const chatMock = closeAfter(await startMockUpstream());
    const mock = closeAfter(await startFormatsMock());
    const server = closeAfter(
      await start({ env: { BATCH_UPDATE_INTERVAL: '3600', METRICS_TOKEN: METRICS } }),
    );
    const { ctx } = server;
    const priced = [...Object.values(MODEL), TOOLS_CHAT, 'rc-error', 'rc-embed', 'rc-rerank'];
    const ratio = (n: number) => JSON.stringify(Object.fromEntries(priced.map((m) => [m, n])));
    await ctx.options.set('ModelRatio', ratio(1));
    await ctx.options.set('CompletionRatio', ratio(2));
    await ctx.options.set('response_cache.groups', 'default');
    await ctx.options.set('GroupRatio', JSON.stringify({ default: 1, vip: 1 }));
    /** A channel of both groups for the models of `mapping` (or `more.models`), mapped to the upstream's names. */
    const channel = (
      type: number,
      baseUrl: string,
      key: string,
      mapping: Record<string, string>,
      more: { models?: string[]; autoBan?: boolean; setting?: Record<string, unknown> } = {},
    ) =>
      seedChannel(ctx, {
        type,
        baseUrl,
        key,
        models: Object.keys(mapping),
        modelMapping: mapping,
        group: 'default,vip',
        ...more,
      });
    await channel(
      ChannelType.OpenAI,
      chatMock.url,
      'sk-upstream-good',
      { [MODEL.chat]: 'gpt-4o', [TOOLS_CHAT]: 'mistral-large-latest' },
      { models: [MODEL.chat, TOOLS_CHAT, 'rc-embed', 'rc-rerank'] },
    );
    await channel(43, chatMock.url, 'sk-quota', { 'rc-error': 'gpt-4o' }, { autoBan: false });
    await channel(ChannelType.Anthropic, mock.url, 'sk-ant-mock', { [MODEL.anthropic]: 'claude-sonnet-4-5' });
    await channel(ChannelType.Gemini, mock.url, 'gm-mock', { [MODEL.gemini]: 'gemini-2.5-flash' });
    await channel(
      ChannelType.OpenAI,
      mock.url,
      'sk-resp-mock',
      { [MODEL.responses]: 'gpt-5' },
      { setting: { responses_api: true } },
    );
    /** A new user of `group` with a funded token. */
    const funded = async (group = 'default'): Promise<Caller> => {
      const user = await seedUser(ctx, { quota: 100_000_000, group });
      const token = await seedToken(ctx, { userId: user.id, remain: 100_000_000 });
      return { id: user.id, apiKey: token.apiKey };
    };
    /** Requests that reached an upstream so far. */
    const upstreamCalls = () => chatMock.requests.length + mock.requests.length;
    return {
      server,
      chatMock,
      alice: await funded(),
      bob: await funded(),
      vip: await funded('vip'),
      funded,
      upstreamCalls,
      ask: (format: ClientFormat, who: { apiKey: string }, model: string, a: Ask) =>
        formatClient(format, server.url, who.apiKey).ask(model, a),
      /**
       * Runs a call whose answer is to be kept, and waits until it is: the store is written once the answer has
       * been sent, so the client may be back before it is.
       */
      async kept<T>(call: () => Promise<T>): Promise<T> {
        const stores = ctx.metrics!.responseCache;
        const before = stores.storedCount;
        const out = await call();
        await expect.poll(() => stores.storedCount).toBe(before + 1);
        return out;
      },
      /** A call's upstream requests: how many the call made. */
      async counted<T>(call: () => Promise<T>): Promise<{ out: T; upstream: number }> {
        const before = upstreamCalls();
        const out = await call();
        return { out, upstream: upstreamCalls() - before };
      },
      logRows: (userId: number) => usageRows(ctx, userId),
      postChat: (who: { apiKey: string }, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${who.apiKey}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        }),
    };
  });
}
