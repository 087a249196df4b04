import { describe, expect, it } from 'vitest';
import { audioQuota } from '../src/relay/billing/quota.ts';
import { realtimeUsage } from '../src/relay/realtime/usage.ts';
import { AUDIO_TOKENS_PER_DELTA, STALLED_DELTAS } from './support/mock-realtime.ts';
import { expectedQuota, realtimeRelay } from './support/realtime-relay.ts';
import { startServer } from './support/server.ts';

/**
 * What a realtime session is charged when it does not end well: the balance running out mid-session (the
 * session ends with an error event, every response billed exactly), a client that walks away (the response is
 * cancelled upstream and billed from its response.done), an upstream that never finishes (billed from the
 * audio relayed); and the price of a realtime usage, worked out by hand.
 */
describe('relay: OpenAI Realtime over WebSocket', () => {
  const relay = realtimeRelay(startServer);

  it('closes the session with an error event when the balance runs out, having billed every response exactly', async () => {
    // The hold for the next response is PreConsumedQuota (50) tokens at the completion ratio: 50 x 4 x 2 = 400.
    const { userId, apiKey } = await relay.newCaller(1_000);
    const conn = await relay.session('gpt-realtime', apiKey);
    const charged: number[] = [];
    for (let i = 0; i < 50; i++) {
      const mark = conn.events.length;
      conn.send({
        type: 'conversation.item.create',
        item: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'tell me more please' }],
        },
      });
      conn.send({ type: 'response.create', response: { output_modalities: ['text'] } });
      const done = await conn.next('response.done', mark);
      charged.push(expectedQuota('gpt-realtime', done.response.usage));
      // After the charge the gateway holds 400 for the next response, or ends the session.
      if (1_000 - charged.reduce((a, b) => a + b, 0) < 400) break;
    }
    const closed = await conn.closed;
    expect(closed).toEqual({ code: 4000, reason: 'insufficient_quota.insufficient_quota' });
    const error = conn.events.at(-1);
    expect(error).toMatchObject({
      type: 'error',
      error: { type: 'insufficient_quota', code: 'insufficient_quota' },
    });
    expect(error.error.message).toMatch(/balance is too low/);
    expect(charged.length).toBeGreaterThan(2);

    await expect.poll(async () => (await relay.logRows(userId)).length).toBe(charged.length);
    const rows = await relay.logRows(userId);
    expect(rows.map((r) => r.quota)).toEqual(charged);
    const total = charged.reduce((a, b) => a + b, 0);
    const user = await relay.userRow(userId);
    expect(Number(user.quota)).toBe(1_000 - total);
    expect(Number(user.used_quota)).toBe(total);
    expect(Number(user.quota)).toBeGreaterThanOrEqual(0);
    await expect.poll(() => relay.heldBy(userId)).toBe(0);
    await expect.poll(() => relay.mock.sessions.at(-1)?.closed?.code).toBe(1000);
  });

  it('bills a response the client walked away from: cancelled upstream, charged from its response.done', async () => {
    const { userId, apiKey } = await relay.newCaller(10_000_000);
    const conn = await relay.session('gpt-realtime', apiKey);
    conn.send({ type: 'response.create', response: { metadata: { slow: 'true' } } });
    await conn.next('response.output_audio.delta');
    conn.ws.close();
    await conn.closed;
    await expect.poll(async () => (await relay.logRows(userId)).length).toBe(1);
    const upstream = relay.mock.sessions.at(-1);
    expect(upstream?.events.map((e: any) => e.type)).toEqual(['response.create', 'response.cancel']);
    const [row] = await relay.logRows(userId);
    expect(row.completion_tokens).toBeGreaterThan(0);
    expect(row.completion_tokens).toBeLessThan(400 * AUDIO_TOKENS_PER_DELTA);
    expect(row.quota).toBeGreaterThan(0);
    expect(Number((await relay.userRow(userId)).quota)).toBe(10_000_000 - row.quota);
    await expect.poll(() => relay.heldBy(userId)).toBe(0);
  });

  // Work done is never billed zero: a response the upstream never finishes is billed from what was relayed.
  for (const [how, flag] of [
    ['never answers the cancel of a client that left', 'deaf'],
    ['drops mid-response', 'drop'],
  ] as const)
    it(`bills a response whose upstream ${how}, from the audio relayed`, async () => {
      const { userId, apiKey } = await relay.newCaller(10_000_000);
      const conn = await relay.session('gpt-realtime', apiKey);
      conn.send({ type: 'response.create', response: { metadata: { [flag]: 'true' } } });
      await expect
        .poll(() => conn.events.filter((e: any) => e.type === 'response.output_audio.delta').length)
        .toBe(STALLED_DELTAS);
      if (flag === 'deaf') conn.ws.close();
      await conn.closed;
      await expect.poll(async () => (await relay.logRows(userId)).length, { timeout: 15_000 }).toBe(1);
      const [row] = await relay.logRows(userId);
      // 22 deltas of 100 ms of pcm16: 2.2 s of assistant audio at about 20 tokens a second.
      expect(row.completion_tokens).toBe(44);
      expect(row.quota).toBeGreaterThan(0);
      expect(JSON.parse(String(row.other))).toMatchObject({ usage_estimated: true, audio_output: 44 });
      expect(Number((await relay.userRow(userId)).quota)).toBe(10_000_000 - row.quota);
      await expect.poll(() => relay.heldBy(userId)).toBe(0);
    });
});

describe('realtime usage and its price', () => {
  const price = {
    modelRatio: 2,
    completionRatio: 4,
    cacheRatio: 0.1,
    cacheWriteRatio: 1,
    modelPrice: -1,
    groupRatio: 1.5,
  };
  const audio = { audioRatio: 8, audioCompletionRatio: 2 };

  it('reads beta usage without a cached split as cached audio first, and prices it exactly', () => {
    const u = realtimeUsage({
      input_tokens: 130,
      output_tokens: 90,
      input_token_details: { text_tokens: 30, audio_tokens: 100, cached_tokens: 64 },
      output_token_details: { text_tokens: 10, audio_tokens: 80 },
    });
    expect(u).toMatchObject({
      promptTokens: 130,
      cachedTokens: 64,
      audioPromptTokens: 36,
      completionTokens: 90,
      audioCompletionTokens: 80,
      textInput: 30,
      audioOutput: 80,
    });
    // (30 text + 64 x 0.1 cached + 36 x 8 audio + 10 x 4 text out + 80 x 8 x 2 audio out) x 2 x 1.5
    // = (30 + 6.4 + 288 + 40 + 1280) x 3 = 4933.2
    expect(audioQuota(u!, price, audio, 500_000)).toBe(4933);
  });

  it('charges nothing for an empty usage, at least 1 for a tiny one, and the per-call price when set', () => {
    expect(realtimeUsage(null)).toBeNull();
    const empty = realtimeUsage({ input_tokens: 0, output_tokens: 0 });
    expect(audioQuota(empty!, price, audio, 500_000)).toBe(0);
    const tiny = realtimeUsage({
      input_tokens: 1,
      output_tokens: 0,
      input_token_details: { cached_tokens: 1 },
    });
    expect(audioQuota(tiny!, { ...price, groupRatio: 0.1 }, audio, 500_000)).toBe(1);
    const one = realtimeUsage({ input_tokens: 5, output_tokens: 5 });
    expect(audioQuota(one!, { ...price, modelPrice: 0.02 }, audio, 500_000)).toBe(15_000);
  });
});
