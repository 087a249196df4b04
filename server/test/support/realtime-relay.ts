import type { AppContext } from '../../src/context.ts';
import { relayState } from '../../src/relay/relay-state.ts';
import { perDescribe } from './describe-gateway.ts';
import { startRealtimeMock } from './mock-realtime.ts';
import { type Conn, dial, isConn } from './realtime-client.ts';
import { seedChannel, seedToken, seedUser } from './relay-seed.ts';
import type { startServer } from './server.ts';
import { usageRows } from './usage-rows.ts';

/**
 * The gateway of the realtime tests: the realtime models priced in its options (not the built-in prices), a
 * mock realtime upstream behind an OpenAI channel (gpt-realtime) and an Azure one (gpt-4o-realtime-preview),
 * the charge a response.done should cost, and the rows a test reads back: balances, usage logs and what the
 * relay still holds.
 */

/** Ratios in hundredths, so the expected charges are integer arithmetic. */
interface Ratios {
  model: number;
  completion: number;
  cache: number;
  audio: number;
  audioCompletion: number;
}
const PRICES: Record<string, Ratios> = {
  // Not the built-in defaults: the options must be what is read.
  'gpt-realtime': { model: 200, completion: 400, cache: 10, audio: 600, audioCompletion: 250 },
  'gpt-4o-realtime-preview': { model: 250, completion: 400, cache: 50, audio: 800, audioCompletion: 200 },
  'gpt-realtime-mini': { model: 30, completion: 400, cache: 10, audio: 1600, audioCompletion: 200 },
  'rt-ssrf': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy': { model: 100, completion: 400, cache: 10, audio: 800, audioCompletion: 200 },
  'rt-socks': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy-meta': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy-named': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
};
/** An option's JSON map of every model in PRICES, from the ratio `pick` chooses. */
const table = (pick: (r: Ratios) => number) =>
  JSON.stringify(Object.fromEntries(Object.entries(PRICES).map(([m, r]) => [m, pick(r) / 100])));

/**
 * The charge for one response.done usage, written out: uncached text input x 1, cached input (text or audio)
 * x CacheRatio, uncached audio input x AudioRatio, text output x CompletionRatio, audio output x AudioRatio x
 * AudioCompletionRatio; all x ModelRatio (group ratio 1), rounded half up.
 */
export function expectedQuota(model: string, usage: any): number {
  const r = PRICES[model];
  const d = usage.input_token_details;
  const cachedText = d.cached_tokens_details.text_tokens;
  const cachedAudio = d.cached_tokens_details.audio_tokens;
  const hundredths =
    (d.text_tokens - cachedText) * 100 +
    (cachedText + cachedAudio) * r.cache +
    (d.audio_tokens - cachedAudio) * r.audio +
    usage.output_token_details.text_tokens * r.completion +
    (usage.output_token_details.audio_tokens * r.audio * r.audioCompletion) / 100;
  return Math.round((hundredths * r.model) / 10_000);
}

/** The ratio options priced from PRICES, and the ratio each is read from. */
const RATIO_OPTIONS: Record<string, keyof Ratios> = {
  ModelRatio: 'model',
  CompletionRatio: 'completion',
  CacheRatio: 'cache',
  AudioRatio: 'audio',
  AudioCompletionRatio: 'audioCompletion',
};

/** Sets the ratio options named (all of them by default) from PRICES. */
export async function priceRealtime(ctx: AppContext, names = Object.keys(RATIO_OPTIONS)): Promise<void> {
  for (const name of names)
    await ctx.options.set(
      name,
      table((r) => r[RATIO_OPTIONS[name]]),
    );
}

/**
 * A gateway with the prices, a mock realtime upstream and the two channels, for one describe block (set up in
 * its beforeAll). The test file passes `startServer` in, so that the file says it starts a gateway
 * (scripts/test-tiers.mjs places it by that).
 */
export function realtimeRelay(start: typeof startServer) {
  return perDescribe(async (closeAfter) => {
    /** The upstream: its handshakes and sessions are what reached it. */
    const mock = closeAfter(
      await startRealtimeMock(['sk-upstream-openai', 'azure-key-1', 'sk-upstream-mini']),
    );
    const server = closeAfter(await start());
    const { ctx } = server;
    await priceRealtime(ctx);
    await ctx.options.set('PreConsumedQuota', '50');
    const openai = await seedChannel(ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-openai',
      models: ['gpt-realtime'],
    });
    await seedChannel(ctx, {
      type: 3,
      baseUrl: mock.url,
      key: 'azure-key-1',
      other: '2024-10-01-preview',
      models: ['gpt-4o-realtime-preview'],
      modelMapping: { 'gpt-4o-realtime-preview': 'gpt-4o-realtime-preview-2024-12-17' },
    });
    const wsUrl = server.url.replace('http://', 'ws://');
    const realtimeUrl = (model: string) => `${wsUrl}/v1/realtime?model=${encodeURIComponent(model)}`;
    return {
      server,
      mock,
      wsUrl,
      port: Number(new URL(server.url).port),
      /** The OpenAI channel of gpt-realtime. */
      openaiChannel: openai.id,
      realtimeUrl,
      /** A session of `apiKey` (sent as a Bearer token) on `model`, once the gateway has said session.created. */
      async session(model: string, apiKey: string): Promise<Conn> {
        const conn = await dial(realtimeUrl(model), { headers: { authorization: `Bearer ${apiKey}` } });
        if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
        await conn.next('session.created');
        return conn;
      },
      /** A user and a token of it (unlimited unless `token` says). */
      async newCaller(quota: number, token: { remain?: number; unlimited?: boolean } = { unlimited: true }) {
        const user = await seedUser(ctx, { quota });
        const tk = await seedToken(ctx, { userId: user.id, ...token });
        return { userId: user.id, tokenId: tk.id, apiKey: tk.apiKey };
      },
      userRow: (id: number) =>
        ctx.db.db
          .selectFrom('users')
          .select(['quota', 'used_quota', 'request_count'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow(),
      tokenRow: (id: number) =>
        ctx.db.db
          .selectFrom('tokens')
          .select(['remain_quota', 'used_quota'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow(),
      /** The user's usage log rows, once the ledger has written them. */
      logRows: (userId: number) => usageRows(ctx, userId),
      /** What the relay holds of the user's balance: nothing once a session is over. */
      heldBy: async (userId: number) => (await relayState(ctx).users.get(userId))?.balance.held,
    };
  });
}
