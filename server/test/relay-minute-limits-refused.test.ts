import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectJson } from '../src/relay/admit/inspect-request.ts';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { type MinuteClock, minuteClock } from './support/minute-clock.ts';
import { startUsageMock, type UsageMock } from './support/mock-usage.ts';
import { seedChannel } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * A request admitted by its tokens-per-minute window and then refused (its budget is used up, its balance is too
 * low) gives its estimate back: the refusal does not use the minute's tokens. The windows read a clock that only
 * the test moves (support/minute-clock.ts), and `corrected()` waits for every admitted request's correction.
 */
const MODEL = 'gpt-4o-mini';
const BODY = {
  model: MODEL,
  max_tokens: 100,
  messages: [{ role: 'user' as const, content: 'x'.repeat(48) }],
};
const ESTIMATE = inspectJson('chat', BODY).promptEstimate + BODY.max_tokens;
const TPM = 10 * ESTIMATE;

describe('relay: a refusal after the per-minute admission', () => {
  let server: TestServer;
  let mock: UsageMock;
  let clock: MinuteClock;
  let n = 0;

  beforeAll(async () => {
    mock = await startUsageMock();
    server = await startServer();
    clock = minuteClock([server.ctx]);
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-upstream', models: [MODEL] });
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  async function limitedToken(user: ConsoleClient, extra: Record<string, unknown>) {
    const r = await user.post('/api/token/', { name: `t${++n}`, tpm_limit: TPM, ...extra });
    expect(r.success, r.message).toBe(true);
    return new OpenAI({ apiKey: `sk-${r.data[0].key}`, baseURL: `${server.url}/v1`, maxRetries: 0 });
  }
  const refused = (client: OpenAI) =>
    client.chat.completions.create(BODY).then(
      () => {
        throw new Error('expected a refusal');
      },
      (e) => e as InstanceType<typeof OpenAI.APIError>,
    );
  /** Each refusal's own headers: the window holds only that request's estimate when the earlier ones gave theirs back. */
  async function refusedThrice(client: OpenAI, code: string) {
    for (let i = 0; i < 3; i++) {
      const err = await refused(client);
      expect(err.code).toBe(code);
      expect((err.headers as Headers).get('x-ratelimit-remaining-tokens')).toBe(String(TPM - ESTIMATE));
      await clock.corrected();
    }
  }

  it('a request refused by its used-up budget does not keep its tokens in the window', async () => {
    const user = await loginAs(server, { username: `budget${++n}`, quota: 1_000_000_000 });
    const client = await limitedToken(user, {
      unlimited_quota: true,
      budget_quota: 1,
      budget_period: 'daily',
      budget_reset_time: '00:00',
    });
    await refusedThrice(client, 'budget_exceeded');
  });

  it('a request refused for a balance too low does not keep its tokens in the window', async () => {
    const user = await loginAs(server, { username: `poor${++n}`, quota: 1 });
    const client = await limitedToken(user, { unlimited_quota: true });
    await refusedThrice(client, 'insufficient_quota');
    expect(mock.calls).toBe(0);
  });
});
