import { describe, expect, it } from 'vitest';
import { seedChannel } from './support/relay-seed.ts';
import { fireChats, groupUser, routingGateway, setRoutingMode } from './support/routing-gateway.ts';

/**
 * Routing modes per group (option GroupRoutingMode), each inside the highest priority tier: weighted random,
 * round robin, least requests in flight and cheapest (setting.cost_ratio x the official price). 1,000
 * requests per mode through a real gateway to a mock OpenAI upstream that counts what each channel receives.
 */
const MODEL = 'gpt-4o-mini';
const N = 1000;

// 1,000 requests a test (the shares are checked within 5 points): on a machine shared with other test runs that
// takes well over the default 30 s, so the limit is the file's own.
describe('routing modes', { timeout: 180_000 }, () => {
  const gw = routingGateway();

  /** `n` chat requests, `concurrency` at a time; their statuses. */
  const fire = (apiKey: string, n: number, concurrency: number) =>
    fireChats(gw.server.url, apiKey, MODEL, n, concurrency);

  /** A user of a group with its API key, and the group's routing mode set as an admin would. */
  async function groupWithMode(group: string, mode: string): Promise<string> {
    await setRoutingMode(gw, group, mode);
    return (await groupUser(gw.server.ctx, group)).apiKey;
  }

  const channel = (group: string, key: string, o: Partial<Parameters<typeof seedChannel>[1]> = {}) =>
    seedChannel(gw.server.ctx, { baseUrl: gw.mock.url, key, models: [MODEL], group, ...o });

  it('weighted random (the default) splits 1,000 requests by weight + 10, within 5 points', async () => {
    const apiKey = await groupWithMode('w', 'weighted');
    await channel('w', 'sk-w0', { weight: 0 });
    await channel('w', 'sk-w10', { weight: 10 });
    await channel('w', 'sk-w30', { weight: 30 });
    const statuses = await fire(apiKey, N, 20);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // Shares 10/70, 20/70 and 40/70; 5 points is about 3 standard deviations at 1,000 draws.
    expect(Math.abs(gw.mock.count('sk-w0') / N - 1 / 7)).toBeLessThan(0.05);
    expect(Math.abs(gw.mock.count('sk-w10') / N - 2 / 7)).toBeLessThan(0.05);
    expect(Math.abs(gw.mock.count('sk-w30') / N - 4 / 7)).toBeLessThan(0.05);
  });

  it('round robin gives each channel of the top tier its turn (weights ignored), exactly', async () => {
    const apiKey = await groupWithMode('rr', 'round_robin');
    await channel('rr', 'sk-rr-a', { weight: 0 });
    await channel('rr', 'sk-rr-b', { weight: 50 });
    await channel('rr', 'sk-rr-c', { weight: 5 });
    await channel('rr', 'sk-rr-low', { priority: -1 });
    const statuses = await fire(apiKey, N, 20);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const counts = ['sk-rr-a', 'sk-rr-b', 'sk-rr-c'].map((k) => gw.mock.count(k));
    expect(counts.reduce((a, b) => a + b)).toBe(N);
    for (const c of counts) expect(Math.abs(c - N / 3)).toBeLessThanOrEqual(1);
    expect(gw.mock.count('sk-rr-low')).toBe(0);
  });

  it('least requests sends traffic where fewer requests are in flight: a stalled channel gets at most half', async () => {
    const apiKey = await groupWithMode('lr', 'least_requests');
    // The slow channel keeps every request open until the test lets them go, so what decides is the count in
    // flight, not how fast this machine turns requests around.
    gw.mock.set('sk-lr-slow', { hold: true });
    await channel('lr', 'sk-lr-slow', { weight: 100 });
    await channel('lr', 'sk-lr-fast');
    const fired = fire(apiKey, N, 16);
    await expect
      .poll(() => gw.mock.count('sk-lr-slow') + gw.mock.count('sk-lr-fast'), { timeout: 150_000 })
      .toBe(N);
    const slow = gw.mock.count('sk-lr-slow');
    gw.mock.release('sk-lr-slow');
    const statuses = await fired;
    expect(statuses.every((s) => s === 200)).toBe(true);
    // Weighted random would give the slow channel (weight 100) 110/120 of the traffic; least requests only
    // sends it a request when it has no more in flight than the fast one, so of 16 never more than 8.
    expect(slow).toBeGreaterThan(0);
    expect(slow).toBeLessThanOrEqual(8);
    expect(gw.mock.peak('sk-lr-slow')).toBe(slow);
    expect(gw.mock.count('sk-lr-fast')).toBe(N - slow);
  });

  it('least requests splits evenly between equally fast channels, within 5 points', async () => {
    const apiKey = await groupWithMode('lr2', 'least_requests');
    gw.mock.set('sk-lr2-a', { latencyMs: 5 });
    gw.mock.set('sk-lr2-b', { latencyMs: 5 });
    await channel('lr2', 'sk-lr2-a', { weight: 0 });
    await channel('lr2', 'sk-lr2-b', { weight: 0 });
    const statuses = await fire(apiKey, N, 16);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(Math.abs(gw.mock.count('sk-lr2-a') / N - 0.5)).toBeLessThan(0.05);
    expect(gw.mock.count('sk-lr2-a') + gw.mock.count('sk-lr2-b')).toBe(N);
  });

  it('cheapest sends every request to the lowest cost ratio of the top tier', async () => {
    const apiKey = await groupWithMode('cheap', 'cheapest');
    await channel('cheap', 'sk-cost-1', { weight: 100 });
    await channel('cheap', 'sk-cost-05', { setting: { cost_ratio: 0.5 } });
    await channel('cheap', 'sk-cost-08', { setting: { cost_ratio: 0.8 } });
    await channel('cheap', 'sk-cost-01-low', { priority: -1, setting: { cost_ratio: 0.1 } });
    const statuses = await fire(apiKey, N, 20);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-cost-05')).toBe(N);
    for (const k of ['sk-cost-1', 'sk-cost-08', 'sk-cost-01-low']) expect(gw.mock.count(k)).toBe(0);
  });

  it('cheapest prices the model a channel calls upstream: a low ratio on a dear mapped model loses', async () => {
    const apiKey = await groupWithMode('cheap2', 'cheapest');
    // 0.2 x gpt-4o (1.25 x (1 + 4)) = 1.25 against 1 x gpt-4o-mini (0.075 x (1 + 4)) = 0.375.
    await channel('cheap2', 'sk-mapped', {
      setting: { cost_ratio: 0.2 },
      modelMapping: { [MODEL]: 'gpt-4o' },
    });
    await channel('cheap2', 'sk-direct');
    // Equal costs share the traffic (weighted random among the cheapest).
    await channel('cheap2', 'sk-direct-twin', { setting: { cost_ratio: '1' } });
    const statuses = await fire(apiKey, 400, 10);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(gw.mock.count('sk-mapped')).toBe(0);
    expect(gw.mock.count('sk-direct') + gw.mock.count('sk-direct-twin')).toBe(400);
    expect(gw.mock.count('sk-direct')).toBeGreaterThan(100);
    expect(gw.mock.count('sk-direct-twin')).toBeGreaterThan(100);
  });

  it('refuses an unknown routing mode or a malformed map with a message, and keeps the saved value', async () => {
    const before = gw.server.ctx.options.get('GroupRoutingMode');
    const bad = await gw.admin.put('/api/option/', {
      key: 'GroupRoutingMode',
      value: JSON.stringify({ default: 'fastest' }),
    });
    expect(bad.success).toBe(false);
    expect(bad.message).toContain('unknown routing mode "fastest"');
    expect(bad.message).toContain('round_robin');
    for (const value of ['["weighted"]', '{"default": 1}', 'not json']) {
      const r = await gw.admin.put('/api/option/', { key: 'GroupRoutingMode', value });
      expect(r.success, value).toBe(false);
      expect(r.message).toMatch(/GroupRoutingMode/);
    }
    expect(gw.server.ctx.options.get('GroupRoutingMode')).toBe(before);
  });

  it('refuses breaker options out of range, and takes 0 as "off"', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['CircuitBreakerErrorRate', '1.5', /between 0 and 1/],
      ['CircuitBreakerErrorRate', '-0.1', /between 0 and 1/],
      ['CircuitBreakerWindowSeconds', '-5', /between 0 and 86400/],
      ['CircuitBreakerWindowSeconds', '2.5', /integer/],
      ['CircuitBreakerMinRequests', 'many', /integer/],
      ['CircuitBreakerCooldownSeconds', '0', /between 1 and 86400/],
      ['CircuitBreakerProbeRequests', '0', /between 1 and 1000/],
    ];
    for (const [key, value, message] of cases) {
      const r = await gw.admin.put('/api/option/', { key, value });
      expect(r.success, `${key}=${value}`).toBe(false);
      expect(r.message).toMatch(message);
      expect(r.message).toContain(key);
    }
    for (const key of [
      'CircuitBreakerErrorRate',
      'CircuitBreakerMinRequests',
      'CircuitBreakerWindowSeconds',
    ]) {
      const r = await gw.admin.put('/api/option/', { key, value: '0' });
      expect(r.success, r.message).toBe(true);
    }
    const list = await gw.admin.get('/api/option/');
    const value = (k: string) => list.data.find((o: { key: string }) => o.key === k)?.value;
    expect(value('CircuitBreakerErrorRate')).toBe('0');
    expect(value('CircuitBreakerCooldownSeconds')).toBe('30');
  });
});
