import { describe, expect, it } from 'vitest';
import { breakersFor } from '../src/relay/route/breaker/index.ts';
import { flushLedger, seedChannel } from './support/relay-seed.ts';
import {
  breakerOptions,
  fireChats,
  groupUser,
  routingGateway,
  setRoutingMode,
} from './support/routing-gateway.ts';

/**
 * The cheapest routing mode reads the same channel price as the cost in the log: a channel's own per-model price
 * when it sets one (per token or per call), else its cost ratio x the official price. Between two healthy
 * channels it picks the cheaper one every time; when that one fails, requests are retried on the other, the
 * breaker takes the failing one out, and half-open probes bring it back once it recovers.
 * Official gpt-4o-mini: ratio 0.075, completion 4. A nominal request is 1,000 prompt + 1,000 completion tokens.
 */
const MODEL = 'gpt-4o-mini';
const COOLDOWN_SEC = 2;

describe('cheapest routing by channel price', () => {
  const gw = routingGateway({ RetryTimes: '2', ...breakerOptions(COOLDOWN_SEC) });

  const fire = (apiKey: string, n: number, concurrency: number) =>
    fireChats(gw.server.url, apiKey, MODEL, n, concurrency);

  async function cheapestGroup(group: string) {
    await setRoutingMode(gw, group, 'cheapest');
    return groupUser(gw.server.ctx, group);
  }

  const channel = (group: string, key: string, setting: Record<string, unknown>) =>
    seedChannel(gw.server.ctx, {
      baseUrl: gw.mock.url,
      key,
      models: [MODEL],
      group,
      setting,
      autoBan: false,
    });

  it('a per-model price below the other channel’s ratio x official price takes every request', async () => {
    const { apiKey } = await cheapestGroup('pm');
    // 1000 x (1 + 4) x 0.06 = 300 against 1000 x (1 + 4) x 0.075 x 0.9 = 337.5.
    await channel('pm', 'sk-pm-own', { cost_prices: { [MODEL]: { ratio: 0.06 } } });
    await channel('pm', 'sk-pm-ratio', { cost_ratio: 0.9 });
    const statuses = await fire(apiKey, 200, 10);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-pm-own')).toBe(200);
    expect(gw.mock.count('sk-pm-ratio')).toBe(0);
  });

  it('per-call and per-token prices compare on the nominal request', async () => {
    const { apiKey } = await cheapestGroup('pc');
    // 0.0005 US$ x 500,000 = 250 a call against 300 for the per-token price.
    await channel('pc', 'sk-pc-call', { cost_prices: { [MODEL]: { price: 0.0005 } } });
    await channel('pc', 'sk-pc-token', { cost_prices: { [MODEL]: { ratio: 0.06 } } });
    // A dear per-model price wins over a cheap cost ratio: the model's own price is what the channel charges.
    await channel('pc', 'sk-pc-dear', { cost_ratio: 0.01, cost_prices: { [MODEL]: { price: 0.01 } } });
    const statuses = await fire(apiKey, 150, 10);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-pc-call')).toBe(150);
    expect(gw.mock.count('sk-pc-token') + gw.mock.count('sk-pc-dear')).toBe(0);
  });

  it('when the cheaper channel fails, requests fall back to the other, and come back when it recovers', async () => {
    const { userId, apiKey } = await cheapestGroup('fb');
    const cheap = await channel('fb', 'sk-fb-cheap', { cost_ratio: 0.5 });
    const dear = await channel('fb', 'sk-fb-dear', { cost_ratio: 0.8 });

    let statuses = await fire(apiKey, 30, 1);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-fb-cheap')).toBe(30);
    expect(gw.mock.count('sk-fb-dear')).toBe(0);

    // Broken: every attempt on it fails and is retried on the dear one; the client sees no error. After
    // CircuitBreakerMinRequests failures the breaker takes it out and requests go straight to the dear one.
    gw.mock.set('sk-fb-cheap', { failShare: 1 });
    statuses = await fire(apiKey, 40, 1);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-fb-dear')).toBe(40);
    const failed = gw.mock.count('sk-fb-cheap') - 30;
    expect(failed).toBeGreaterThanOrEqual(10);
    expect(failed).toBeLessThan(40);

    // Recovered: after the cool-down the probes pass and the cheap channel takes every request again.
    gw.mock.set('sk-fb-cheap', { failShare: 0 });
    // The cool-down ends on the breakers' clock, moved past it (a sleep would race a busy machine).
    const breakers = breakersFor(gw.server.ctx);
    const later = Date.now() + COOLDOWN_SEC * 1000 + 300;
    breakers.now = () => later;
    const before = gw.mock.count('sk-fb-cheap');
    statuses = await fire(apiKey, 20, 1);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-fb-cheap') - before).toBe(20);
    expect(gw.mock.count('sk-fb-dear')).toBe(40);

    // The log says which channel served each request, with each one's own cost.
    await flushLedger(gw.server.ctx);
    const rows = await gw.server.ctx.logDb.db
      .selectFrom('logs')
      .select(['channel_id', 'cost'])
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .execute();
    expect(rows).toHaveLength(90);
    const costs = (id: number) =>
      new Set(rows.filter((r) => Number(r.channel_id) === id).map((r) => Number(r.cost)));
    expect(rows.filter((r) => Number(r.channel_id) === dear.id)).toHaveLength(40);
    // The recording: 16 prompt + 363 completion tokens; (16 + 363 x 4) x 0.075 = 110.1 at the official price.
    expect([...costs(cheap.id)]).toEqual([55]); // x 0.5 = 55.05
    expect([...costs(dear.id)]).toEqual([88]); // x 0.8 = 88.08
  });
});
