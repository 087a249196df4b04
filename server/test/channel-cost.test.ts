import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';
import { usageRows } from './support/usage-rows.ts';

/**
 * A channel's upstream price (setting.cost_ratio, setting.cost_prices) prices each usage log row's `cost` with
 * the charge's own exact formula and no group ratio, to the unit; prices that do not parse are refused when the
 * channel is saved; users never see the cost.
 *
 * The mock replays recordings: deepseek-chat answers 13 prompt + 300 completion tokens; with tools, 339 prompt
 * tokens (320 of them from the cache) + 92 completion tokens. Official prices of deepseek-chat: ratio 0.135,
 * completion 4, cache 0.25. Every test group has a group ratio of 1.5, which the charge applies and the cost
 * must not.
 */
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

describe('upstream cost of usage log rows', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let admin: ConsoleClient;
  const groups = ['g-plain', 'g-ratio', 'g-model', 'g-inherit', 'g-call', 'g-call-ratio', 'g-mapped'];

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { BATCH_UPDATE_INTERVAL: '0.1' } });
    admin = await loginAs(server, { username: 'cost-admin', role: Role.Admin });
    const set = async (key: string, value: unknown) => {
      const r = await admin.put('/api/option/', { key, value: JSON.stringify(value) });
      expect(r.success, r.message).toBe(true);
    };
    await set('GroupRatio', Object.fromEntries([['default', 1], ...groups.map((g) => [g, 1.5])]));
    await set('ModelPrice', { 'deepseek-fixed': 0.02 });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  /** A channel saved through the console API, as an admin would. */
  async function channel(
    group: string,
    setting: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) {
    const r = await admin.post('/api/channel/', {
      type: 1,
      name: `cost-${group}`,
      key: `sk-${group}`,
      base_url: mock.url,
      models: 'deepseek-chat,deepseek-fixed',
      group,
      setting: JSON.stringify(setting),
      ...extra,
    });
    expect(r.success, r.message).toBe(true);
    return r.data.ids[0] as number;
  }

  async function client(group: string) {
    const user = await seedUser(server.ctx, { quota: 10_000_000, group });
    const token = await seedToken(server.ctx, { userId: user.id, unlimited: true });
    return {
      user,
      openai: new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 }),
    };
  }

  /** The user's consumption rows, oldest first, once the ledger has written them. */
  const rows = (userId: number) => usageRows(server.ctx, userId);

  /** Reloads the relay's channel cache (the console announces a change; this waits for it) and checks the route. */
  async function routed(group: string, model = 'deepseek-chat') {
    await relayState(server.ctx).channels.reload();
    expect(relayState(server.ctx).channels.tiers(group, model).length).toBe(1);
  }

  it('without a price of its own a channel costs the official price, without the group ratio', async () => {
    await channel('g-plain', {});
    await routed('g-plain');
    const { user, openai } = await client('g-plain');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const [row] = await rows(user.id);
    expect([row.prompt_tokens, row.completion_tokens]).toEqual([13, 300]);
    // (13 + 300 x 4) x 0.135 x 1.5 = 245.6325; the cost: (13 + 300 x 4) x 0.135 = 163.755.
    expect(Number(row.quota)).toBe(246);
    expect(Number(row.cost)).toBe(164);
  });

  it('a cost ratio multiplies the official price (a reseller at 0.6x), streamed or not', async () => {
    await channel('g-ratio', { cost_ratio: 0.6 });
    await routed('g-ratio');
    const { user, openai } = await client('g-ratio');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const stream = await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of stream) {
      /* read to the end */
    }
    const logged = await rows(user.id);
    expect(logged).toHaveLength(2);
    for (const row of logged) {
      const tokens = Number(row.prompt_tokens) + 4 * Number(row.completion_tokens);
      // round(tokens x 0.135 x 0.6); for the recording (1213 tokens) 98.253 -> 98.
      expect(Number(row.cost)).toBe(Math.round((tokens * 135 * 6) / 10_000));
    }
    expect(Number(logged[0].cost)).toBe(98);
  });

  it('per-model prices replace the official ones, cache reads at their own ratio', async () => {
    await channel('g-model', {
      cost_ratio: 5, // not used: the model has its own price
      cost_prices: { 'deepseek-chat': { ratio: 0.1, completion_ratio: 3, cache_ratio: 0.25 } },
    });
    await routed('g-model');
    const { user, openai } = await client('g-model');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: TOOLS,
    });
    const [row] = await rows(user.id);
    expect([row.prompt_tokens, row.completion_tokens]).toEqual([339, 92]);
    expect(JSON.parse(row.other).cache_tokens).toBe(320);
    // Charge: (19 + 320 x 0.25 + 92 x 4) x 0.135 x 1.5 = 94.5675. Cost: (19 + 320 x 0.25 + 92 x 3) x 0.1 = 37.5.
    expect(Number(row.quota)).toBe(95);
    expect(Number(row.cost)).toBe(38);
  });

  it('ratios a per-model price leaves out are the official ones', async () => {
    await channel('g-inherit', { cost_prices: { 'deepseek-chat': { ratio: 0.1 } } });
    await routed('g-inherit');
    const { user, openai } = await client('g-inherit');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: TOOLS,
    });
    const [row] = await rows(user.id);
    // (19 + 320 x 0.25 + 92 x 4) x 0.1 = 46.7.
    expect(Number(row.cost)).toBe(47);
  });

  it('a per-call price is US$ per request x QuotaPerUnit; a cost ratio scales the official per-call price', async () => {
    await channel('g-call', { cost_prices: { 'deepseek-fixed': { price: 0.0125 } } });
    await channel('g-call-ratio', { cost_ratio: 0.5 });
    await routed('g-call', 'deepseek-fixed');
    await routed('g-call-ratio', 'deepseek-fixed');
    const a = await client('g-call');
    const b = await client('g-call-ratio');
    for (const c of [a, b])
      await c.openai.chat.completions.create({
        model: 'deepseek-fixed',
        messages: [{ role: 'user', content: 'hi' }],
      });
    const [rowA] = await rows(a.user.id);
    const [rowB] = await rows(b.user.id);
    // Charge: 0.02 x 500,000 x 1.5. Costs: 0.0125 x 500,000 and 0.02 x 500,000 x 0.5.
    expect(Number(rowA.quota)).toBe(15_000);
    expect(Number(rowA.cost)).toBe(6250);
    expect(Number(rowB.quota)).toBe(15_000);
    expect(Number(rowB.cost)).toBe(5000);
  });

  it('a mapped model is priced by the name the channel calls upstream', async () => {
    await channel(
      'g-mapped',
      {
        cost_prices: {
          'deepseek-reasoner': { ratio: 0.2, completion_ratio: 2 },
          'deepseek-chat': { ratio: 9 },
        },
      },
      { model_mapping: JSON.stringify({ 'deepseek-chat': 'deepseek-reasoner' }) },
    );
    await routed('g-mapped');
    const { user, openai } = await client('g-mapped');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'think' }],
    });
    const [row] = await rows(user.id);
    const p = Number(row.prompt_tokens);
    const c = Number(row.completion_tokens);
    const k = Number(JSON.parse(row.other).cache_tokens ?? 0);
    expect(p + c).toBeGreaterThan(0);
    // ((p - k) + k x 0.25 (deepseek-reasoner's official cache ratio) + c x 2) x 0.2, in hundredths.
    expect(Number(row.cost)).toBe(Math.round(((p - k) * 100 + k * 25 + c * 200) / 500));
  });

  it('admins see each row’s cost and the channel’s margin; users see neither', async () => {
    const { user, openai } = await client('g-ratio');
    await openai.chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const [row] = await rows(user.id);
    const list = await admin.get(`/api/log/?username=${user.username}`);
    expect(list.success, list.message).toBe(true);
    expect(list.data.items[0].cost).toBe(98);

    const self = await loginAs(server, { username: 'cost-user', group: 'g-ratio', quota: 1_000_000 });
    const own = await seedToken(server.ctx, { userId: self.userId, unlimited: true });
    await new OpenAI({
      apiKey: own.apiKey,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    }).chat.completions.create({
      model: 'deepseek-chat',
      messages: [{ role: 'user', content: 'hi' }],
    });
    await flushLedger(server.ctx);
    const mine = await self.get('/api/log/self/');
    expect(mine.success).toBe(true);
    expect(mine.data.items.filter((i: { type: number }) => i.type === 2)).toHaveLength(1);
    for (const item of mine.data.items) {
      expect(item).not.toHaveProperty('cost');
      expect(item.other).not.toContain('cost');
    }
    const stat = await self.get('/api/log/self/stat');
    expect(stat.data).not.toHaveProperty('cost');
    expect((await self.get('/api/log/margin')).status).toBe(403);

    const m = await admin.get(`/api/log/margin?channel=${row.channel_id}&tz=UTC`);
    expect(m.success, m.message).toBe(true);
    const all = await server.ctx.logDb.db
      .selectFrom('logs')
      .select(['quota', 'cost'])
      .where('channel_id', '=', row.channel_id)
      .where('type', '=', 2)
      .execute();
    const revenue = all.reduce((s, r) => s + Number(r.quota), 0);
    const cost = all.reduce((s, r) => s + Number(r.cost), 0);
    expect(m.data).toMatchObject({ count: all.length, revenue, cost, margin: revenue - cost, uncosted: 0 });
    expect(m.data.channels).toEqual([
      expect.objectContaining({ channel_id: row.channel_id, channel_name: 'cost-g-ratio', revenue, cost }),
    ]);
  });

  describe('prices that do not parse are refused when the channel is saved', () => {
    const bad: Array<[string, Record<string, unknown>, RegExp]> = [
      ['negative ratio', { cost_ratio: -0.5 }, /setting\.cost_ratio must be a number of 0 or more/],
      ['ratio as text', { cost_ratio: '0.6' }, /setting\.cost_ratio must be a number/],
      [
        'prices as a list',
        { cost_prices: [{ ratio: 1 }] },
        /setting\.cost_prices must be an object of model name/,
      ],
      [
        'prices as text',
        { cost_prices: '{"gpt-4o": {"ratio": 1}}' },
        /setting\.cost_prices must be an object/,
      ],
      ['entry not an object', { cost_prices: { 'gpt-4o': 1.25 } }, /gpt-4o: must be an object/],
      [
        'unknown field',
        { cost_prices: { 'gpt-4o': { ratio: 1, input: 2 } } },
        /gpt-4o: unknown field "input"/,
      ],
      ['ratio as text', { cost_prices: { 'gpt-4o': { ratio: '1.25' } } }, /gpt-4o: ratio must be a number/],
      [
        'negative cache ratio',
        { cost_prices: { 'gpt-4o': { ratio: 1, cache_ratio: -1 } } },
        /cache_ratio must be/,
      ],
      [
        'price and ratio',
        { cost_prices: { 'gpt-4o': { ratio: 1, price: 0.1 } } },
        /either a per-call price or ratios/,
      ],
      ['no price', { cost_prices: { 'gpt-4o': { completion_ratio: 4 } } }, /gpt-4o: needs a ratio/],
      ['blank model', { cost_prices: { ' ': { ratio: 1 } } }, /invalid model name/],
    ];

    it('on create: a 400 naming the setting, and no channel', async () => {
      const count = async () =>
        Number(
          (
            await server.ctx.db.db
              .selectFrom('channels')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      for (const [what, setting, message] of bad) {
        const r = await admin.post('/api/channel/', {
          type: 1,
          name: 'refused',
          key: 'sk-refused',
          base_url: mock.url,
          models: 'gpt-4o',
          setting: JSON.stringify(setting),
        });
        expect(r.status, what).toBe(400);
        expect(r.success, what).toBe(false);
        expect(r.message, what).toMatch(message);
      }
      expect(await count()).toBe(before);
    });

    it('on update: a 400, and the saved setting stays', async () => {
      const id = await channel('g-update', { cost_ratio: 0.7 });
      for (const [what, setting, message] of bad) {
        const r = await admin.put('/api/channel/', { id, setting: JSON.stringify(setting) });
        expect(r.status, what).toBe(400);
        expect(r.message, what).toMatch(message);
      }
      const saved = await admin.get(`/api/channel/${id}`);
      expect(JSON.parse(saved.data.setting)).toEqual({ cost_ratio: 0.7 });
      const good = await admin.put('/api/channel/', {
        id,
        setting: JSON.stringify({
          cost_ratio: 0,
          cost_prices: { 'gpt-4o': { price: 0 }, o1: { ratio: 7.5, completion_ratio: 4 } },
        }),
      });
      expect(good.success, good.message).toBe(true);
    });
  });
});
