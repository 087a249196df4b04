import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { DATABASES, redisUp as redisAvailable } from './support/databases.ts';
import { say } from './support/guard-clients.ts';
import { startInstances } from './support/instances.ts';
import { type GuardedMock, startGuardedMock } from './support/mock-guarded.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import type { TestServer } from './support/server.ts';

/**
 * Two gateway instances sharing one database and one Redis: a guardrail policy saved on one is enforced by the
 * other (options travel through the database and the Redis bus), masking and refusing alike.
 */
const redisUp = await redisAvailable();
const engine = DATABASES.find((d) => d.name === 'postgres' && d.available) ?? DATABASES[0];

describe.skipIf(!redisUp)(`guardrails on two instances sharing Redis (${engine.name})`, () => {
  let mock: GuardedMock;
  let cluster: Awaited<ReturnType<typeof startInstances>>;
  let nodes: TestServer[] = [];
  let apiKey: string;

  beforeAll(async () => {
    mock = await startGuardedMock();
    cluster = await startInstances(2);
    nodes = cluster.nodes;
    const user = await seedUser(nodes[0].ctx, { quota: 100_000_000 });
    apiKey = (await seedToken(nodes[0].ctx, { userId: user.id, unlimited: true })).apiKey;
    await nodes[0].ctx.options.set('ModelRatio', JSON.stringify({ 'guard-gpt': 1 }));
    await seedChannel(nodes[0].ctx, { type: 43, baseUrl: mock.url, key: 'sk-chat', models: ['guard-gpt'] });
    await relayState(nodes[1].ctx).channels.reload();
  });
  afterAll(async () => {
    await cluster?.close();
    await mock?.close();
  });

  it('a policy saved on one instance is enforced on the other', async () => {
    mock.pieces = ['Your card ', '4111 11', '11 1111 ', '1111', ' is on file.'];
    const before = await say(
      'openai',
      nodes[1].url,
      apiKey,
      'guard-gpt',
      'Tell me about Project Nightingale',
      true,
    );
    expect(before.error).toBeUndefined();
    expect(before.text).toBe('Your card 4111 1111 1111 1111 is on file.');

    await nodes[0].ctx.options.set(
      'guardrails.policies',
      JSON.stringify({
        strict: {
          rules: [
            { id: 'codename', type: 'regex', pattern: 'project\\s+nightingale', flags: 'i', on: 'prompt' },
            { id: 'pii', type: 'pii', mode: 'mask' },
          ],
        },
      }),
    );
    await nodes[0].ctx.options.set('guardrails.group_policies', JSON.stringify({ '*': 'strict' }));

    const refusal = () =>
      say('anthropic', nodes[1].url, apiKey, 'guard-gpt', 'Tell me about Project Nightingale', false).then(
        (r) => r.error?.message ?? 'answered',
      );
    await expect.poll(refusal, { timeout: 15_000 }).toContain('guardrail rule codename');
    const masked = await say('gemini', nodes[1].url, apiKey, 'guard-gpt', 'Which card?', true);
    expect(masked.text).toBe('Your card [CARD] is on file.');
  });
});
