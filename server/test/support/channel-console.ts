import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { ALLOW_PRIVATE_OPTION } from '../../src/infra/ssrf.ts';
import { type ChannelUpstream, startChannelUpstream } from './channel-upstream.ts';
import { type ConsoleClient, loginAs } from './console-client.ts';
import type { TestServer } from './server.ts';

export interface ChannelConsole {
  server: TestServer;
  /** Root, logged in to the console. */
  admin: ConsoleClient;
  upstream: ChannelUpstream;
  /** A new OpenAI channel on the upstream with this key (fields of `extra` override); its id. */
  channel(key: string, extra?: Record<string, unknown>): Promise<number>;
  /** The channel as the console reads it. */
  row(id: number): Promise<any>;
  /** The `enabled` flag of each of the channel's abilities. */
  enabledAbilities(id: number): Promise<number[]>;
}

/**
 * A gateway (from `start`), its root console session and the channel upstream, for a describe block; before
 * each test the upstream's record is emptied and the channel health options are set to known values.
 */
export function channelConsole(start: () => Promise<TestServer>): ChannelConsole {
  let made = 0;
  const c: ChannelConsole = {
    server: undefined as unknown as TestServer,
    admin: undefined as unknown as ConsoleClient,
    upstream: undefined as unknown as ChannelUpstream,
    async channel(key, extra = {}) {
      const r = await c.admin.post('/api/channel/', {
        type: 1,
        name: `upstream ${++made}`,
        key,
        base_url: c.upstream.url,
        models: 'gpt-4.1-nano,gpt-4o',
        ...extra,
      });
      expect(r.success, r.message).toBe(true);
      return r.data.ids[0] as number;
    },
    row: async (id) => (await c.admin.get(`/api/channel/${id}`)).data,
    enabledAbilities: async (id) =>
      (
        await c.server.ctx.db.db
          .selectFrom('abilities')
          .select('enabled')
          .where('channel_id', '=', id)
          .execute()
      ).map((a) => Number(a.enabled)),
  };
  beforeAll(async () => {
    c.upstream = await startChannelUpstream();
    c.server = await start();
    c.admin = await loginAs(c.server, { username: 'root', role: Role.Root });
  });
  afterAll(async () => {
    await c.server?.close();
    c.upstream?.server.close();
  });
  beforeEach(async () => {
    c.upstream.seen.length = 0;
    await c.server.ctx.options.set(ALLOW_PRIVATE_OPTION, 'true');
    await c.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await c.server.ctx.options.set('AutomaticEnableChannelEnabled', 'true');
    await c.server.ctx.options.set('ChannelDisableThreshold', '5');
  });
  return c;
}
