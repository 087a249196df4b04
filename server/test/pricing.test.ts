import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '../src/relay/billing/default-prices.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

type Row = {
  model_name: string;
  quota_type: number;
  model_ratio: number;
  completion_ratio: number;
  model_price: number;
  enable_groups: string[];
  unpriced: boolean;
};

describe('GET /api/pricing and the reset of model ratios', () => {
  let server: TestServer;
  let admin: ConsoleClient;
  let vipUser: ConsoleClient;
  let user: ConsoleClient;

  beforeAll(async () => {
    server = await startServer();
    admin = await loginAs(server, { username: 'root1', role: Role.Root });
    vipUser = await loginAs(server, { username: 'vipper', group: 'svip' });
    user = await loginAs(server, { username: 'plain' });
    // Abilities as the channel module writes them: (group, model) -> channel, enabled or not.
    await server.ctx.db.db
      .insertInto('abilities')
      .values([
        {
          group: 'default',
          model: 'gpt-4o-mini',
          channel_id: 1,
          enabled: 1,
          priority: 0,
          weight: 0,
          tag: '',
        },
        { group: 'vip', model: 'gpt-4o-mini', channel_id: 1, enabled: 1, priority: 0, weight: 0, tag: '' },
        { group: 'vip', model: 'dall-e-3', channel_id: 2, enabled: 1, priority: 0, weight: 0, tag: '' },
        {
          group: 'default',
          model: 'my-private-model',
          channel_id: 2,
          enabled: 1,
          priority: 0,
          weight: 0,
          tag: '',
        },
        {
          group: 'default',
          model: 'disabled-only',
          channel_id: 3,
          enabled: 0,
          priority: 0,
          weight: 0,
          tag: '',
        },
      ])
      .execute();
    server.ctx.bus.publish('channels');
  });
  afterAll(() => server?.close());

  // The price list carries group_ratio and usable_group beside data, so read the raw body.
  const pricing = async (
    client?: ConsoleClient,
  ): Promise<{
    success: boolean;
    data: Row[];
    group_ratio: Record<string, number>;
    usable_group: Record<string, string>;
  }> => {
    const headers: Record<string, string> = client
      ? { cookie: client.cookie, 'new-api-user': String(client.userId) }
      : {};
    return fetch(`${server.url}/api/pricing`, { headers }).then((r) => r.json() as Promise<any>);
  };

  it('lists every model with an enabled ability, priced as the relay bills it, to anyone', async () => {
    await admin.put('/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'dall-e-3': 0.04 }) });
    await admin.put('/api/option/', { key: 'CompletionRatio', value: JSON.stringify({ 'gpt-4o-mini': 4 }) });
    const res = await fetch(`${server.url}/api/pricing`);
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.success).toBe(true);
    const byName = Object.fromEntries((body.data as Row[]).map((r) => [r.model_name, r]));
    expect(Object.keys(byName).sort()).toEqual(['dall-e-3', 'gpt-4o-mini', 'my-private-model']);
    expect(byName['gpt-4o-mini']).toMatchObject({
      quota_type: 0,
      model_ratio: DEFAULT_MODEL_RATIO['gpt-4o-mini'],
      completion_ratio: 4,
      enable_groups: ['default', 'vip'],
      unpriced: false,
    });
    expect(byName['dall-e-3']).toMatchObject({ quota_type: 1, model_price: 0.04, enable_groups: ['vip'] });
    expect(byName['my-private-model']).toMatchObject({ quota_type: 0, unpriced: true });
    // Logged out: the configured usable groups and their ratios.
    expect(body.usable_group).toEqual({ default: '默认分组', vip: 'vip分组' });
    expect(body.group_ratio).toEqual({ default: 1, vip: 1 });
  });

  it("follows a price change at once and shows the caller's own group", async () => {
    await admin.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'my-private-model': 3 }) });
    await admin.put('/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1, svip: 0.8 }),
    });
    const body = await pricing(vipUser);
    const row = body.data.find((r) => r.model_name === 'my-private-model');
    expect(row).toMatchObject({ model_ratio: 3, unpriced: false });
    expect(body.usable_group).toHaveProperty('svip');
    expect(body.group_ratio).toEqual({ default: 1, vip: 1, svip: 0.8 });
  });

  it('follows channel changes announced on the bus', async () => {
    await server.ctx.db.db
      .updateTable('abilities')
      .set({ enabled: 1 })
      .where('model', '=', 'disabled-only')
      .execute();
    server.ctx.bus.publish('channels');
    const body = await pricing(user);
    expect(body.data.map((r) => r.model_name)).toContain('disabled-only');
  });

  it('gives admins the built-in price tables by option key', async () => {
    expect((await user.get('/api/pricing/defaults')).status).toBe(403);
    const res = await admin.get('/api/pricing/defaults');
    expect(res.success).toBe(true);
    expect(res.data.ModelRatio['gpt-4.1']).toBe(DEFAULT_MODEL_RATIO['gpt-4.1']);
    expect(res.data.ModelPrice['dall-e-3']).toBe(DEFAULT_MODEL_PRICE['dall-e-3']);
  });

  it('resets the price options to the built-in tables, for admins only', async () => {
    const refused = await user.post('/api/option/rest_model_ratio');
    expect(refused.status).toBe(403);
    expect(server.ctx.options.json('ModelRatio')).toEqual({ 'my-private-model': 3 });

    const res = await admin.post('/api/option/rest_model_ratio');
    expect(res.success).toBe(true);
    expect(server.ctx.options.json('ModelRatio')).toEqual(DEFAULT_MODEL_RATIO);
    const body = await pricing(user);
    expect(body.data.find((r) => r.model_name === 'my-private-model')).toMatchObject({ unpriced: true });
    expect(server.ctx.options.json('ModelPrice')).toEqual(DEFAULT_MODEL_PRICE);
    expect(body.data.find((r) => r.model_name === 'dall-e-3')).toMatchObject({
      quota_type: 1,
      model_price: DEFAULT_MODEL_PRICE['dall-e-3'],
    });
  });
});
