import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/** Upstream faults: a connection reset after the headers, and a hung upstream whose client walks away. */
describe('relay: upstream faults', () => {
  let mock: MockUpstream;
  let broken: Server;
  let brokenUrl: string;
  let brokenCalls = 0;
  let server: TestServer;
  const MODEL = 'gpt-4.1-nano-2025-04-14';
  const QUOTA = 10_000_000;

  beforeAll(async () => {
    mock = await startMockUpstream();
    // Answers 200 with a Content-Length, sends part of the JSON body, then resets the connection.
    broken = createServer((req, res) => {
      brokenCalls++;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        // Cut once the part is on the wire, however long that takes.
        res.write('{"id":"chatcmpl-broken","object":"chat.completion","choices":[', () =>
          res.socket?.destroy(),
        );
      });
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
    await new Promise<void>((resolve) => broken?.close(() => resolve()));
  });

  /** A user, token and channels in a group of their own, so each case sees only its channels. */
  async function caller(group: string, channels: Array<{ baseUrl: string; key: string; priority: number }>) {
    const userId = (await seedUser(server.ctx, { quota: QUOTA, group })).id;
    for (const ch of channels)
      await seedChannel(server.ctx, { ...ch, group, models: [MODEL], autoBan: false });
    const { apiKey } = await seedToken(server.ctx, { userId, unlimited: true });
    return { userId, apiKey };
  }

  const chat = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  const post = (apiKey: string, path = '/v1/chat/completions') =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: chat,
    });

  async function billing(userId: number) {
    await flushLedger(server.ctx);
    const user = await server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const logs = await server.ctx.logDb.db
      .selectFrom('logs')
      .select('quota')
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .execute();
    return {
      quota: Number(user.quota),
      used: Number(user.used_quota),
      logs: logs.map((l) => Number(l.quota)),
    };
  }

  it('a reset after the headers gives a 502 in OpenAI shape on both paths, and bills nothing', async () => {
    await server.ctx.options.set('RetryTimes', '0');
    const { userId, apiKey } = await caller('reset-only', [{ baseUrl: brokenUrl, key: 'sk-x', priority: 0 }]);
    for (const path of ['/v1/chat/completions', '/v1/chat/completions/']) {
      const calls = brokenCalls;
      const res = await post(apiKey, path);
      expect({ path, status: res.status }).toEqual({ path, status: 502 });
      const json = (await res.json()) as any;
      expect(json.error.type).toBe('upstream_error');
      expect(json.error.message).toContain('the upstream connection broke before its answer was complete');
      expect(json.error.message).not.toContain('127.0.0.1');
      expect(brokenCalls).toBe(calls + 1);
    }
    expect(await billing(userId)).toEqual({ quota: QUOTA, used: 0, logs: [] });
    expect(relayState(server.ctx).users.peekBalance(userId)?.available).toBe(QUOTA);
  });

  it('a reset after the headers moves to the next channel (RetryTimes=1) and bills the answer once', async () => {
    await server.ctx.options.set('RetryTimes', '1');
    const { userId, apiKey } = await caller('reset-retry', [
      { baseUrl: brokenUrl, key: 'sk-x', priority: 10 },
      { baseUrl: mock.url, key: 'sk-good', priority: 0 },
    ]);
    const calls = brokenCalls;
    const res = await post(apiKey);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).choices[0].message.content).toBeTruthy();
    expect(brokenCalls).toBe(calls + 1);
    const after = await billing(userId);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0]).toBeGreaterThan(0);
    expect(after.used).toBe(after.logs[0]);
    expect(after.quota).toBe(QUOTA - after.logs[0]);
    await server.ctx.options.set('RetryTimes', '0');
  });

  it('a client that leaves a hung non-stream call frees its hold at once, on both paths, with no log row', async () => {
    const { userId, apiKey } = await caller('hung', [{ baseUrl: mock.url, key: 'sk-timeout', priority: 0 }]);
    const balance = () => relayState(server.ctx).users.peekBalance(userId)?.available;
    for (const path of ['/v1/chat/completions', '/v1/chat/completions/']) {
      const seen = mock.requests.length;
      // A plain connection the client drops: nothing pooled or reused behind the test's back.
      const client = request(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      });
      const closed = new Promise((resolve) => client.on('close', resolve));
      client.on('error', () => {});
      client.end(chat);
      await expect.poll(() => mock.requests.length).toBe(seen + 1); // the upstream has the call, never answers
      expect(balance()).toBeLessThan(QUOTA); // held while the call is open
      client.destroy();
      await closed;
      await expect.poll(() => ({ path, available: balance() })).toEqual({ path, available: QUOTA });
    }
    expect(await billing(userId)).toEqual({ quota: QUOTA, used: 0, logs: [] });
  });
});
