import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AppContext } from '../../src/context.ts';
import { type ConsoleClient, loginAs } from './console-client.ts';
import { type FlakyUpstream, startFlakyUpstream } from './mock-flaky.ts';
import { seedToken, seedUser } from './relay-seed.ts';
import { startServer, type TestServer } from './server.ts';

/** What the routing and circuit-breaker tests share: a gateway, the flaky upstream, an admin's session. */
export interface RoutingGateway {
  server: TestServer;
  mock: FlakyUpstream;
  /** An admin, logged in to the console. */
  admin: ConsoleClient;
}

/**
 * A gateway in front of a flaky upstream with an admin's console session, for a describe block: started before
 * its tests (the fields are set then, and `options` saved through the console in their order), closed after
 * them.
 */
export function routingGateway(options: Record<string, string> = {}): RoutingGateway {
  const gw = {} as RoutingGateway;
  beforeAll(async () => {
    gw.mock = await startFlakyUpstream();
    gw.server = await startServer();
    gw.admin = await loginAs(gw.server, { username: 'admin', role: Role.Admin });
    for (const [key, value] of Object.entries(options)) {
      const r = await gw.admin.put('/api/option/', { key, value });
      expect(r.success, r.message).toBe(true);
    }
  });
  afterAll(async () => {
    await gw.server?.close();
    await gw.mock?.close();
  });
  return gw;
}

/** The breaker the breaker tests run: a 60 s window, 10 requests at least, half of them failed, three probes. */
export const breakerOptions = (cooldownSec: number): Record<string, string> => ({
  CircuitBreakerWindowSeconds: '60',
  CircuitBreakerMinRequests: '10',
  CircuitBreakerErrorRate: '0.5',
  CircuitBreakerCooldownSeconds: String(cooldownSec),
  CircuitBreakerProbeRequests: '3',
});

/** One chat request of `model` ("hi") with the API key. */
export const postChat = (baseUrl: string, apiKey: string, model: string) =>
  fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** One chat request, its answer read to the end; its status. */
export async function chatStatus(baseUrl: string, apiKey: string, model: string): Promise<number> {
  const r = await postChat(baseUrl, apiKey, model);
  await r.arrayBuffer();
  return r.status;
}

/** `n` chat requests, `concurrency` at a time; their statuses. */
export async function fireChats(
  baseUrl: string,
  apiKey: string,
  model: string,
  n: number,
  concurrency: number,
): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      statuses.push(await chatStatus(baseUrl, apiKey, model));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

/** A new user of `group` with an unlimited token. */
export async function groupUser(ctx: AppContext, group: string, quota = 1e12) {
  const user = await seedUser(ctx, { quota, group });
  const token = await seedToken(ctx, { userId: user.id, unlimited: true });
  return { userId: user.id, apiKey: token.apiKey };
}

/** Sets a group's routing mode as an admin would (the other groups' modes kept). */
export async function setRoutingMode(gw: RoutingGateway, group: string, mode: string) {
  const modes = JSON.parse(gw.server.ctx.options.get('GroupRoutingMode'));
  const r = await gw.admin.put('/api/option/', {
    key: 'GroupRoutingMode',
    value: JSON.stringify({ ...modes, [group]: mode }),
  });
  expect(r.success, r.message).toBe(true);
}
