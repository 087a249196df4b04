import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayState } from '../src/relay/relay-state.ts';
import { type MockUpstream, startMockUpstream } from './support/mock-upstream.ts';
import { deltas, type Scrape, scrape } from './support/prometheus.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

const TOKEN = 'scrape-secret-4f1c';
const MODEL = 'gpt-4.1-nano-2025-04-14';

/**
 * /metrics of a gateway serving traffic: its counters and histograms move with plain, streamed, converted,
 * retried, failed and refused relay requests, and with the ledger writer and the caches. Who may read /metrics:
 * metrics-access.test.ts.
 */
describe('metrics: relay traffic and the gateway inside', () => {
  let server: TestServer;
  let mock: MockUpstream;
  let userId: number;
  let username: string;
  let client: OpenAI;
  let tokenName: string;
  let apiKey: string;
  let good: { id: number };

  /** A token of a group of its own, with the groups' options set the way an admin would. */
  async function groupClient(group: string) {
    const { options } = server.ctx;
    await options.set('GroupRatio', JSON.stringify({ ...options.json('GroupRatio'), [group]: 1 }));
    await options.set(
      'UserUsableGroups',
      JSON.stringify({ ...options.json('UserUsableGroups'), [group]: group }),
    );
    const token = await seedToken(server.ctx, { userId, unlimited: true, group });
    return new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  }

  async function lastLog() {
    await flushLedger(server.ctx);
    return server.ctx.logDb.db.selectFrom('logs').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
  }

  const read = () => scrape(server.url, TOKEN);
  const requests = (s: Scrape, labels: Record<string, string>) =>
    s.value('modelgate_relay_requests_total', labels);

  beforeAll(async () => {
    mock = await startMockUpstream();
    server = await startServer({ env: { METRICS_TOKEN: TOKEN, BATCH_UPDATE_INTERVAL: '3600' } });
    const user = await seedUser(server.ctx, { quota: 100_000_000 });
    userId = user.id;
    username = user.username;
    const token = await seedToken(server.ctx, { userId, unlimited: true });
    tokenName = token.name;
    apiKey = token.apiKey;
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    good = await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-good', models: [MODEL] });
    await server.ctx.options.set('RetryTimes', '2');
  });
  afterAll(async () => {
    await server?.close();
    await mock?.close();
  });

  it('a plain request: counted by format, model, channel and status; timed; billed in quota and tokens', async () => {
    const before = await read();
    const answer = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0].message.content).toContain('Galaxy Day');
    const log = await lastLog();
    const after = await read();
    const delta = deltas(before, after);
    const labels = { format: 'openai', model: MODEL, channel: String(good.id), status: '2xx' };
    expect(requests(after, labels) - requests(before, labels)).toBe(1);
    const upstream = { channel: String(good.id), stream: 'false' };
    expect(delta('modelgate_relay_upstream_seconds_count', upstream)).toBe(1);
    expect(delta('modelgate_relay_upstream_seconds_sum', upstream)).toBeGreaterThan(0);
    // Buckets are cumulative and end with every observation.
    const buckets = after
      .samples('modelgate_relay_upstream_seconds_bucket')
      .filter((b) => b.labels.channel === String(good.id) && b.labels.stream === 'false');
    expect(buckets.at(-1)?.labels.le).toBe('+Inf');
    expect(buckets.at(-1)?.value).toBe(after.value('modelgate_relay_upstream_seconds_count', upstream));
    for (let i = 1; i < buckets.length; i++)
      expect(buckets[i].value).toBeGreaterThanOrEqual(buckets[i - 1].value);
    const overhead = { format: 'openai' };
    expect(delta('modelgate_relay_overhead_seconds_count', overhead)).toBe(1);
    // Not streamed: no first-byte time.
    expect(after.value('modelgate_relay_first_byte_seconds_count', { model: MODEL })).toBe(
      before.value('modelgate_relay_first_byte_seconds_count', { model: MODEL }),
    );
    expect(log.quota).toBeGreaterThan(0);
    expect(delta('modelgate_relay_quota_total', { model: MODEL })).toBe(log.quota);
    expect(delta('modelgate_relay_tokens_total', { model: MODEL, direction: 'prompt' })).toBe(
      log.prompt_tokens,
    );
    expect(delta('modelgate_relay_tokens_total', { model: MODEL, direction: 'completion' })).toBe(
      log.completion_tokens,
    );
    expect(after.value('modelgate_relay_requests_in_flight')).toBe(0);
  });

  it('a streamed request: its time to first byte and the upstream time of the whole stream', async () => {
    const before = await read();
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toContain('Harmony Day');
    const log = await lastLog();
    const after = await read();
    const delta = deltas(before, after);
    expect(delta('modelgate_relay_requests_total', { channel: String(good.id), status: '2xx' })).toBe(1);
    expect(delta('modelgate_relay_first_byte_seconds_count', { model: MODEL })).toBe(1);
    // The first byte's time is the one the usage log keeps (ms), within rounding.
    expect(delta('modelgate_relay_first_byte_seconds_sum', { model: MODEL }) * 1000).toBeCloseTo(
      log.first_time,
      -1,
    );
    expect(
      delta('modelgate_relay_upstream_seconds_count', { channel: String(good.id), stream: 'true' }),
    ).toBe(1);
    expect(delta('modelgate_relay_quota_total', { model: MODEL })).toBe(log.quota);
    expect(delta('modelgate_relay_tokens_total', { model: MODEL, direction: 'completion' })).toBe(
      log.completion_tokens,
    );
  });

  it('a request in another client format, converted for the channel, streamed', async () => {
    const before = await read();
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: MODEL,
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('event: message_stop');
    const log = await lastLog();
    const after = await read();
    const delta = deltas(before, after);
    expect(
      delta('modelgate_relay_requests_total', {
        format: 'anthropic',
        model: MODEL,
        channel: String(good.id),
        status: '2xx',
      }),
    ).toBe(1);
    expect(delta('modelgate_relay_overhead_seconds_count', { format: 'anthropic' })).toBe(1);
    expect(
      delta('modelgate_relay_upstream_seconds_count', { channel: String(good.id), stream: 'true' }),
    ).toBe(1);
    expect(delta('modelgate_relay_first_byte_seconds_count', { model: MODEL })).toBe(1);
    expect(delta('modelgate_relay_quota_total', { model: MODEL })).toBe(log.quota);
  });

  it('a retried request: a retry and a failover from the failing channel, answered by the next', async () => {
    const c = await groupClient('retry');
    const bad = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-fail500',
      models: [MODEL],
      group: 'retry',
      priority: 10,
    });
    const next = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-good',
      models: [MODEL],
      group: 'retry',
      priority: 0,
    });
    const before = await read();
    const answer = await c.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(answer.choices[0].message.content).toContain('Galaxy Day');
    const log = await lastLog();
    expect(log.channel_id).toBe(next.id);
    const after = await read();
    const delta = deltas(before, after);
    expect(delta('modelgate_relay_retries_total', { channel: String(bad.id) })).toBe(1);
    expect(delta('modelgate_relay_failovers_total', { channel: String(bad.id) })).toBe(1);
    expect(delta('modelgate_relay_retries_total', {})).toBe(1);
    // One request, answered by the second channel; both calls timed.
    expect(delta('modelgate_relay_requests_total', {})).toBe(1);
    expect(delta('modelgate_relay_requests_total', { channel: String(next.id), status: '2xx' })).toBe(1);
    expect(delta('modelgate_relay_upstream_seconds_count', { channel: String(bad.id) })).toBe(1);
    expect(delta('modelgate_relay_upstream_seconds_count', { channel: String(next.id) })).toBe(1);
    expect(delta('modelgate_relay_quota_total', { model: MODEL })).toBe(log.quota);
  });

  it('failed requests: counted with their status class and channel, not billed; a dead key disables its channel', async () => {
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const down = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-fail500',
      models: [MODEL],
      group: 'down',
    });
    const dead = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-badkey',
      models: [MODEL],
      group: 'dead',
    });
    const downClient = await groupClient('down');
    const deadClient = await groupClient('dead');
    const before = await read();
    const ask = (c: OpenAI) =>
      c.chat.completions
        .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e) => e);
    const e500 = await ask(downClient);
    expect(e500).toBeInstanceOf(OpenAI.APIError);
    expect(e500.status).toBe(500);
    // The dead key is the channel's: the caller gets the gateway's own 503, the key leaves rotation.
    const e401 = await ask(deadClient);
    expect(e401.status).toBe(503);
    await expect
      .poll(async () =>
        (await read()).value('modelgate_channel_auto_disabled_total', { channel: String(dead.id) }),
      )
      .toBe(1);
    const after = await read();
    const delta = deltas(before, after);
    expect(delta('modelgate_relay_requests_total', { channel: String(down.id), status: '5xx' })).toBe(1);
    expect(delta('modelgate_relay_requests_total', { channel: String(dead.id), status: '4xx' })).toBe(1);
    expect(
      after.value('modelgate_channel_auto_disabled_total', { channel: String(dead.id), scope: 'channel' }),
    ).toBe(1);
    // The only channel of each group failed: nothing was left to retry on, and nothing was billed.
    expect(delta('modelgate_relay_retries_total', {})).toBe(0);
    expect(delta('modelgate_relay_quota_total', {})).toBe(0);
    expect(delta('modelgate_relay_upstream_seconds_count', { channel: String(down.id) })).toBe(1);
    expect(delta('modelgate_relay_overhead_seconds_count', { format: 'openai' })).toBe(2);
    expect(after.value('modelgate_relay_requests_in_flight')).toBe(0);
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });

  it('refusals and unknown models: bounded labels, never a user or a token name', async () => {
    const before = await read();
    const noKey = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(noKey.status).toBe(401);
    const typos = ['gpt-4o-typo-1', 'gpt-4o-typo-2', 'gpt-4o-typo-3'];
    for (const model of typos) {
      const err = await client.chat.completions
        .create({ model, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e) => e);
      expect(err.status).toBe(404);
    }
    const anthropic = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-not-a-token' },
      body: JSON.stringify({ model: MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(anthropic.status).toBe(401);
    // A token count is answered by the gateway itself: a request without a channel.
    const counted = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(counted.status).toBe(200);
    expect(((await counted.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const after = await read();
    const delta = (labels: Record<string, string>) => requests(after, labels) - requests(before, labels);
    expect(delta({ format: 'openai', model: 'none', channel: 'none', status: '4xx' })).toBe(1);
    expect(delta({ format: 'anthropic', model: 'none', channel: 'none', status: '4xx' })).toBe(1);
    expect(delta({ format: 'openai', model: 'other', channel: 'none', status: '4xx' })).toBe(3);
    expect(delta({ format: 'anthropic', model: MODEL, channel: 'none', status: '2xx' })).toBe(1);
    for (const model of typos) expect(after.text).not.toContain(model);
    expect(after.text).not.toContain(username);
    expect(after.text).not.toContain(tokenName);
    for (const s of after.samples('modelgate_relay_requests_total'))
      expect(Object.keys(s.labels).sort()).toEqual(['channel', 'format', 'model', 'status']);
  });

  it('requests in flight: one while an upstream keeps it waiting, none after', async () => {
    await seedChannel(server.ctx, { baseUrl: mock.url, key: 'sk-slowstart', models: [MODEL], group: 'slow' });
    const slow = await groupClient('slow');
    const inFlight = async () => (await read()).value('modelgate_relay_requests_in_flight');
    expect(await inFlight()).toBe(0);
    const done = (async () => {
      const stream = await slow.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
      });
      for await (const _ of stream);
    })();
    // The upstream stays silent for 1.5 s before its first chunk.
    await expect.poll(inFlight, { interval: 50, timeout: 1400 }).toBe(1);
    await done;
    await expect.poll(inFlight).toBe(0);
  });

  it("the ledger writer's queue and flush time, and the caches' reload time", async () => {
    await flushLedger(server.ctx);
    const before = await read();
    expect(before.value('modelgate_ledger_queue_length')).toBe(0);
    await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(relayState(server.ctx).writer.queued).toBe(1);
    expect((await read()).value('modelgate_ledger_queue_length')).toBe(1);
    await flushLedger(server.ctx);
    const flushed = await read();
    expect(flushed.value('modelgate_ledger_queue_length')).toBe(0);
    expect(flushed.value('modelgate_ledger_flush_seconds_count')).toBe(
      before.value('modelgate_ledger_flush_seconds_count') + 1,
    );
    expect(flushed.value('modelgate_ledger_flush_errors_total')).toBe(0);

    await relayState(server.ctx).channels.reload();
    await server.ctx.options.set('ModelRatio', JSON.stringify({ 'house-model': 1 }));
    const reloaded = await read();
    expect(reloaded.value('modelgate_cache_reload_seconds_count', { cache: 'channels' })).toBe(
      flushed.value('modelgate_cache_reload_seconds_count', { cache: 'channels' }) + 1,
    );
    // The relay's price cache reloads on the change; the console's price list keeps one of its own, which does too.
    expect(
      reloaded.value('modelgate_cache_reload_seconds_count', { cache: 'prices' }) -
        flushed.value('modelgate_cache_reload_seconds_count', { cache: 'prices' }),
    ).toBeGreaterThanOrEqual(1);
  });
});
