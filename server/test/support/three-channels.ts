import { ChannelType } from '@modelgate/shared';
import { afterAll, beforeAll } from 'vitest';
import { seedChannel, seedToken, seedUser } from './relay-seed.ts';
import { startServer, type TestServer } from './server.ts';

/**
 * A gateway with one channel per upstream wire format of the format mocks (Anthropic, OpenAI Responses,
 * Gemini), all on one mock URL with the mock's keys, each serving one model (mapped to the upstream's name
 * when `upstreamModels` says), and a funded token.
 */
export type UpstreamWire = 'anthropic' | 'responses' | 'gemini';

export async function startThreeChannels(
  mockUrl: string,
  models: Record<UpstreamWire, string>,
  upstreamModels: Partial<Record<UpstreamWire, string>> = {},
): Promise<{ server: TestServer; apiKey: string }> {
  const server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '3600' } });
  const { ctx } = server;
  const user = await seedUser(ctx, { quota: 100_000_000 });
  const apiKey = (await seedToken(ctx, { userId: user.id, remain: 100_000_000 })).apiKey;
  await ctx.options.set(
    'ModelRatio',
    JSON.stringify({ [models.anthropic]: 1.5, [models.responses]: 0.625, [models.gemini]: 0.15 }),
  );
  const channel = (wire: UpstreamWire, type: number, key: string, setting?: Record<string, unknown>) =>
    seedChannel(ctx, {
      type,
      baseUrl: mockUrl,
      key,
      models: [models[wire]],
      ...(upstreamModels[wire] ? { modelMapping: { [models[wire]]: upstreamModels[wire] } } : {}),
      ...(setting ? { setting } : {}),
    });
  await channel('anthropic', ChannelType.Anthropic, 'sk-ant-mock');
  await channel('responses', ChannelType.OpenAI, 'sk-resp-mock', { responses_api: true });
  await channel('gemini', ChannelType.Gemini, 'gm-mock');
  return { server, apiKey };
}

export interface ThreeChannels<M> {
  server: TestServer;
  mock: M;
  apiKey: string;
}

/**
 * `startThreeChannels` on the mock `start` makes, for a describe block: the mock and the gateway start before
 * its tests (the fields are set then) and close after them.
 */
export function threeChannelsOn<M extends { url: string; close(): Promise<void> }>(
  start: () => Promise<M>,
  models: Record<UpstreamWire, string>,
  upstreamModels: Partial<Record<UpstreamWire, string>> = {},
): ThreeChannels<M> {
  const gw = {} as ThreeChannels<M>;
  beforeAll(async () => {
    gw.mock = await start();
    Object.assign(gw, await startThreeChannels(gw.mock.url, models, upstreamModels));
  });
  afterAll(async () => {
    await gw.server?.close();
    await gw.mock?.close();
  });
  return gw;
}
