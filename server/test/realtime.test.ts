import { connect as netConnect } from 'node:net';
import { ChannelStatus } from '@modelgate/shared';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { setResolverForTests } from '../src/infra/ssrf.ts';
import { audioQuota } from '../src/relay/billing/quota.ts';
import { realtimeUsage } from '../src/relay/realtime/usage.ts';
import { relayState } from '../src/relay/relay-state.ts';
import {
  AUDIO_DELTAS,
  AUDIO_TOKENS_PER_DELTA,
  AUDIO_TRANSCRIPT,
  type RealtimeMock,
  STALLED_DELTAS,
  startRealtimeMock,
  TEXT_DELTAS,
} from './support/mock-realtime.ts';
import { startHttpProxy, startSocks5Proxy, type TestProxy } from './support/proxies.ts';
import { flushLedger, seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * The OpenAI Realtime relay: `GET /v1/realtime?model=` upgraded to a WebSocket and relayed to an OpenAI or Azure
 * channel (a mock realtime server speaking the API's events), with the key checked before the upgrade, each
 * response.done billed from its usage (text, audio and cached tokens at their own ratios), one usage log row per
 * response, the session ended with an error event when the balance runs out, and retries over channels before
 * the client's upgrade completes.
 */

/** Ratios in hundredths, so the expected charges are integer arithmetic. */
interface Ratios {
  model: number;
  completion: number;
  cache: number;
  audio: number;
  audioCompletion: number;
}
const PRICES: Record<string, Ratios> = {
  // Not the built-in defaults: the options must be what is read.
  'gpt-realtime': { model: 200, completion: 400, cache: 10, audio: 600, audioCompletion: 250 },
  'gpt-4o-realtime-preview': { model: 250, completion: 400, cache: 50, audio: 800, audioCompletion: 200 },
  'gpt-realtime-mini': { model: 30, completion: 400, cache: 10, audio: 1600, audioCompletion: 200 },
  'rt-ssrf': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy': { model: 100, completion: 400, cache: 10, audio: 800, audioCompletion: 200 },
  'rt-socks': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy-meta': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
  'rt-proxy-named': { model: 100, completion: 100, cache: 100, audio: 100, audioCompletion: 100 },
};
const table = (pick: (r: Ratios) => number) =>
  JSON.stringify(Object.fromEntries(Object.entries(PRICES).map(([m, r]) => [m, pick(r) / 100])));

/**
 * The charge for one response.done usage, written out: uncached text input x 1, cached input (text or audio)
 * x CacheRatio, uncached audio input x AudioRatio, text output x CompletionRatio, audio output x AudioRatio x
 * AudioCompletionRatio; all x ModelRatio (group ratio 1), rounded half up.
 */
function expectedQuota(model: string, usage: any): number {
  const r = PRICES[model];
  const d = usage.input_token_details;
  const cachedText = d.cached_tokens_details.text_tokens;
  const cachedAudio = d.cached_tokens_details.audio_tokens;
  const hundredths =
    (d.text_tokens - cachedText) * 100 +
    (cachedText + cachedAudio) * r.cache +
    (d.audio_tokens - cachedAudio) * r.audio +
    usage.output_token_details.text_tokens * r.completion +
    (usage.output_token_details.audio_tokens * r.audio * r.audioCompletion) / 100;
  return Math.round((hundredths * r.model) / 10_000);
}

interface Conn {
  ws: WebSocket;
  events: any[];
  closed: Promise<{ code: number; reason: string }>;
  /** The first event of `type` at or after index `from`. */
  next(type: string, from?: number): Promise<any>;
  send(event: unknown): void;
}

function track(ws: WebSocket): Conn {
  const events: any[] = [];
  let wake: (() => void) | null = null;
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()));
    wake?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return {
    ws,
    events,
    closed,
    async next(type, from = 0) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const hit = events.slice(from).find((e) => e.type === type);
        if (hit) return hit;
        if (Date.now() > deadline) throw new Error(`no ${type} event; got ${events.map((e) => e.type)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    send: (event) => ws.send(typeof event === 'string' ? event : JSON.stringify(event)),
  };
}

/** Opens a raw WebSocket to the gateway; a refused handshake resolves as its status and body. */
function dial(
  url: string,
  opts: { protocols?: string[]; headers?: Record<string, string> } = {},
): Promise<Conn | { status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.headers });
    const conn = track(ws);
    ws.once('open', () => resolve(conn));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }),
      );
    });
    ws.once('error', reject);
  });
}

const isConn = (x: unknown): x is Conn => !!x && typeof x === 'object' && 'ws' in x;

describe('relay: OpenAI Realtime over WebSocket', () => {
  let server: TestServer;
  let mock: RealtimeMock;
  let httpProxy: TestProxy;
  let socksProxy: TestProxy;
  let wsUrl: string;
  let port: number;
  let openaiChannel: number;

  const userRow = async (id: number) =>
    server.ctx.db.db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const tokenRow = async (id: number) =>
    server.ctx.db.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const logRows = async (userId: number) => {
    await flushLedger(server.ctx);
    return server.ctx.db.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id')
      .execute();
  };
  /** Nothing stays held once a session is over. */
  const heldBy = async (userId: number) => (await relayState(server.ctx).users.get(userId))?.balance.held;
  const newCaller = async (
    quota: number,
    token: { remain?: number; unlimited?: boolean } = { unlimited: true },
  ) => {
    const user = await seedUser(server.ctx, { quota });
    const tk = await seedToken(server.ctx, { userId: user.id, ...token });
    return { userId: user.id, tokenId: tk.id, apiKey: tk.apiKey };
  };
  const realtimeUrl = (model: string) => `${wsUrl}/v1/realtime?model=${encodeURIComponent(model)}`;

  beforeAll(async () => {
    mock = await startRealtimeMock(['sk-upstream-openai', 'azure-key-1', 'sk-upstream-mini']);
    httpProxy = await startHttpProxy();
    socksProxy = await startSocks5Proxy();
    server = await startServer();
    wsUrl = server.url.replace('http://', 'ws://');
    port = Number(new URL(server.url).port);
    const o = server.ctx.options;
    await o.set(
      'ModelRatio',
      table((r) => r.model),
    );
    await o.set(
      'CompletionRatio',
      table((r) => r.completion),
    );
    await o.set(
      'CacheRatio',
      table((r) => r.cache),
    );
    await o.set(
      'AudioRatio',
      table((r) => r.audio),
    );
    await o.set(
      'AudioCompletionRatio',
      table((r) => r.audioCompletion),
    );
    await o.set('PreConsumedQuota', '50');
    openaiChannel = (
      await seedChannel(server.ctx, {
        baseUrl: mock.url,
        key: 'sk-upstream-openai',
        models: ['gpt-realtime'],
      })
    ).id;
    await seedChannel(server.ctx, {
      type: 3,
      baseUrl: mock.url,
      key: 'azure-key-1',
      other: '2024-10-01-preview',
      models: ['gpt-4o-realtime-preview'],
      modelMapping: { 'gpt-4o-realtime-preview': 'gpt-4o-realtime-preview-2024-12-17' },
    });
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all([mock?.close(), httpProxy?.close(), socksProxy?.close()]);
  });

  it('relays the official GA client both ways in order, billing each response.done to the unit with one log row each', async () => {
    const { userId, tokenId, apiKey } = await newCaller(10_000_000, { remain: 5_000_000 });
    const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    // The SDK always dials wss://; the test gateway listens on plain HTTP, so the SDK's socket is plain TCP.
    const rt = await OpenAIRealtimeWS.create(client, {
      model: 'gpt-realtime',
      options: { createConnection: () => netConnect(port, '127.0.0.1') },
    });
    const errors: unknown[] = [];
    rt.on('error', (e) => errors.push(e));
    const textDeltas: string[] = [];
    rt.on('response.output_text.delta', (e) => textDeltas.push(e.delta));
    const conn = track(rt.socket);
    await new Promise((resolve) => rt.socket.once('open', resolve));

    const sent = [
      {
        type: 'session.update',
        event_id: 'evt_client_1',
        session: { type: 'realtime', instructions: 'Be brief.' },
      },
      {
        type: 'conversation.item.create',
        event_id: 'evt_client_2',
        item: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'What is the weather like' }],
        },
      },
      { type: 'response.create', event_id: 'evt_client_3', response: { output_modalities: ['text'] } },
    ] as const;
    for (const e of sent) rt.send(e as any);
    const first = await conn.next('response.done');
    const audio = Buffer.alloc(4000, 7).toString('base64');
    const more = [
      { type: 'input_audio_buffer.append', audio },
      { type: 'input_audio_buffer.append', audio },
      { type: 'input_audio_buffer.commit' },
      { type: 'response.create' },
    ] as const;
    const mark = conn.events.length;
    for (const e of more) rt.send(e as any);
    const second = await conn.next('response.done', mark);

    // Client events reached the upstream unchanged and in order.
    const upstream = mock.sessions.at(-1);
    expect(upstream?.events).toEqual([...sent, ...more]);
    // Server events reached the client in the order the upstream sent them.
    const types = conn.events.map((e) => e.type);
    const textResponse = [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      ...TEXT_DELTAS.map(() => 'response.output_text.delta'),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ];
    const audioResponse = [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      ...Array.from({ length: AUDIO_DELTAS }, () => 'response.output_audio.delta'),
      ...AUDIO_TRANSCRIPT.map(() => 'response.output_audio_transcript.delta'),
      'response.output_audio.done',
      'response.output_audio_transcript.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ];
    expect(types).toEqual([
      'session.created',
      'session.updated',
      'conversation.item.added',
      'conversation.item.done',
      ...textResponse,
      'input_audio_buffer.committed',
      ...audioResponse,
    ]);
    expect(textDeltas.join('')).toBe(TEXT_DELTAS.join(''));
    expect(errors).toEqual([]);

    // The upstream saw the channel's key, the GA protocol (no beta header), and never the caller's key.
    const hs = mock.handshakes.at(-1);
    expect(hs?.path).toBe('/v1/realtime');
    expect(hs?.query.get('model')).toBe('gpt-realtime');
    expect(hs?.headers.authorization).toBe('Bearer sk-upstream-openai');
    expect(hs?.headers['openai-beta']).toBeUndefined();
    expect(JSON.stringify(hs?.headers)).not.toContain(apiKey.slice(3));

    const u1 = first.response.usage;
    const u2 = second.response.usage;
    expect(u2.output_token_details.audio_tokens).toBe(AUDIO_DELTAS * AUDIO_TOKENS_PER_DELTA);
    expect(u2.input_token_details.audio_tokens).toBe(10);
    expect(u2.input_token_details.cached_tokens).toBeGreaterThan(0);
    const q1 = expectedQuota('gpt-realtime', u1);
    const q2 = expectedQuota('gpt-realtime', u2);
    expect(q2).toBeGreaterThan(q1);

    rt.close();
    await conn.closed;
    await expect.poll(async () => (await logRows(userId)).length).toBe(2);
    const rows = await logRows(userId);
    expect(rows.map((r) => r.quota)).toEqual([q1, q2]);
    expect(rows.map((r) => r.prompt_tokens)).toEqual([u1.input_tokens, u2.input_tokens]);
    expect(rows.map((r) => r.completion_tokens)).toEqual([u1.output_tokens, u2.output_tokens]);
    for (const [i, r] of rows.entries()) {
      expect(r.model_name).toBe('gpt-realtime');
      expect(r.channel_id).toBe(openaiChannel);
      expect(r.token_id).toBe(tokenId);
      expect(r.is_stream).toBe(1);
      const other = JSON.parse(String(r.other));
      const u = [u1, u2][i];
      expect(other).toMatchObject({
        ws: true,
        audio: true,
        realtime_response_id: [first, second][i].response.id,
        text_input: u.input_token_details.text_tokens,
        audio_input: u.input_token_details.audio_tokens,
        text_output: u.output_token_details.text_tokens,
        audio_output: u.output_token_details.audio_tokens,
        audio_ratio: 6,
        audio_completion_ratio: 2.5,
        cache_tokens: u.input_token_details.cached_tokens,
        model_ratio: 2,
      });
    }
    // One session, one request id on its rows.
    expect(rows[0].request_id).toBe(rows[1].request_id);
    const user = await userRow(userId);
    expect(Number(user.quota)).toBe(10_000_000 - q1 - q2);
    expect(Number(user.used_quota)).toBe(q1 + q2);
    expect(Number(user.request_count)).toBe(2);
    expect(Number((await tokenRow(tokenId)).remain_quota)).toBe(5_000_000 - q1 - q2);
    await expect.poll(() => heldBy(userId)).toBe(0);
  });

  it('takes the key from the subprotocol as browsers send it, echoes `realtime`, and speaks beta to an Azure channel', async () => {
    const { userId, apiKey } = await newCaller(10_000_000);
    const conn = await dial(realtimeUrl('gpt-4o-realtime-preview'), {
      protocols: ['realtime', `openai-insecure-api-key.${apiKey}`, 'openai-beta.realtime-v1'],
    });
    if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
    expect(conn.ws.protocol).toBe('realtime');
    await conn.next('session.created');
    conn.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] },
    });
    conn.send({ type: 'response.create', response: { modalities: ['text'] } });
    const done = await conn.next('response.done');
    const deltas = conn.events.filter((e) => e.type === 'response.text.delta').map((e) => e.delta);
    expect(deltas.join('')).toBe(TEXT_DELTAS.join(''));
    expect(conn.events.map((e) => e.type)).toContain('conversation.item.created');

    const hs = mock.handshakes.at(-1);
    expect(hs?.path).toBe('/openai/realtime');
    expect(hs?.query.get('api-version')).toBe('2024-10-01-preview');
    expect(hs?.query.get('deployment')).toBe('gpt-4o-realtime-preview-2024-12-17');
    expect(hs?.headers['api-key']).toBe('azure-key-1');
    expect(hs?.headers['openai-beta']).toBe('realtime=v1');
    expect(JSON.stringify(hs?.headers)).not.toContain(apiKey.slice(3));

    conn.ws.close();
    await conn.closed;
    await expect.poll(async () => (await logRows(userId)).length).toBe(1);
    const [row] = await logRows(userId);
    const q = expectedQuota('gpt-4o-realtime-preview', done.response.usage);
    expect(row.quota).toBe(q);
    expect(row.model_name).toBe('gpt-4o-realtime-preview');
    expect(JSON.parse(String(row.other)).upstream_model_name).toBe('gpt-4o-realtime-preview-2024-12-17');
    expect(Number((await userRow(userId)).quota)).toBe(10_000_000 - q);
  });

  it('refuses a bad or missing key with a 401 before the upgrade, reaching no upstream', async () => {
    const before = mock.handshakes.length;
    const attempts = [
      dial(realtimeUrl('gpt-realtime'), { headers: { authorization: 'Bearer sk-notarealkey' } }),
      dial(realtimeUrl('gpt-realtime'), {
        protocols: ['realtime', 'openai-insecure-api-key.sk-notarealkey'],
      }),
      dial(realtimeUrl('gpt-realtime')),
    ];
    for (const r of await Promise.all(attempts)) {
      if (isConn(r)) throw new Error('the upgrade was accepted');
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(r.body.error.code).toBe('invalid_api_key');
      expect(r.headers['x-oneapi-request-id']).toBeTruthy();
      expect(JSON.stringify(r.body)).not.toContain('notarealkey');
    }
    expect(mock.handshakes.length).toBe(before);
  });

  it('ends a session for an unknown or missing model with an error event and a clear close reason', async () => {
    const { apiKey } = await newCaller(1_000_000);
    for (const [url, code] of [
      [realtimeUrl('gpt-nonexistent-model'), 'model_not_found'],
      [`${wsUrl}/v1/realtime`, 'model_required'],
    ]) {
      const conn = await dial(url, { headers: { authorization: `Bearer ${apiKey}` } });
      if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
      const closed = await conn.closed;
      expect(conn.events).toHaveLength(1);
      expect(conn.events[0]).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code } });
      expect(conn.events[0].event_id).toMatch(/^evt_/);
      expect(closed).toEqual({ code: 4000, reason: `invalid_request_error.${code}` });
    }
  });

  it('closes the session with an error event when the balance runs out, having billed every response exactly', async () => {
    // The hold for the next response is PreConsumedQuota (50) tokens at the completion ratio: 50 x 4 x 2 = 400.
    const { userId, apiKey } = await newCaller(1_000);
    const conn = await dial(realtimeUrl('gpt-realtime'), { headers: { authorization: `Bearer ${apiKey}` } });
    if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
    await conn.next('session.created');
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

    await expect.poll(async () => (await logRows(userId)).length).toBe(charged.length);
    const rows = await logRows(userId);
    expect(rows.map((r) => r.quota)).toEqual(charged);
    const total = charged.reduce((a, b) => a + b, 0);
    const user = await userRow(userId);
    expect(Number(user.quota)).toBe(1_000 - total);
    expect(Number(user.used_quota)).toBe(total);
    expect(Number(user.quota)).toBeGreaterThanOrEqual(0);
    await expect.poll(() => heldBy(userId)).toBe(0);
    await expect.poll(() => mock.sessions.at(-1)?.closed?.code).toBe(1000);
  });

  it('retries another channel before the upgrade completes, disabling the channel whose key was refused', async () => {
    await server.ctx.options.set('RetryTimes', '1');
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const revoked = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-revoked-key',
      models: ['gpt-realtime-mini'],
      priority: 10,
    });
    const good = await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-mini',
      models: ['gpt-realtime-mini'],
    });
    const { userId, apiKey } = await newCaller(1_000_000);
    const before = mock.handshakes.length;
    const conn = await dial(realtimeUrl('gpt-realtime-mini'), {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
    await conn.next('session.created');
    expect(mock.handshakes.slice(before).map((h) => [h.headers.authorization, h.status])).toEqual([
      ['Bearer sk-revoked-key', 401],
      ['Bearer sk-upstream-mini', 101],
    ]);
    conn.send({ type: 'response.create', response: { output_modalities: ['text'] } });
    const done = await conn.next('response.done');
    conn.ws.close();
    await expect.poll(async () => (await logRows(userId)).length).toBe(1);
    const [row] = await logRows(userId);
    expect(row.quota).toBe(expectedQuota('gpt-realtime-mini', done.response.usage));
    expect(JSON.parse(String(row.other)).admin_info.use_channel).toEqual([
      String(revoked.id),
      String(good.id),
    ]);
    await expect
      .poll(
        async () =>
          (
            await server.ctx.db.db
              .selectFrom('channels')
              .select('status')
              .where('id', '=', revoked.id)
              .executeTakeFirstOrThrow()
          ).status,
      )
      .toBe(ChannelStatus.AutoDisabled);
    await server.ctx.options.set('RetryTimes', '0');
  });

  it('passes a malformed event on (answered as OpenAI does) and refuses a session.update that changes the model', async () => {
    const { apiKey } = await newCaller(1_000_000);
    const conn = await dial(realtimeUrl('gpt-realtime'), { headers: { authorization: `Bearer ${apiKey}` } });
    if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
    await conn.next('session.created');
    conn.send('this is not json');
    const parseError = await conn.next('error');
    expect(parseError.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });

    let mark = conn.events.length;
    conn.send({
      type: 'session.update',
      event_id: 'evt_swap',
      session: { type: 'realtime', model: 'gpt-4o' },
    });
    const refused = await conn.next('error', mark);
    expect(refused.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'session.model',
      event_id: 'evt_swap',
    });
    mark = conn.events.length;
    conn.send({
      type: 'session.update',
      session: { type: 'realtime', model: 'gpt-realtime', instructions: 'Hi' },
    });
    expect((await conn.next('session.updated', mark)).session.model).toBe('gpt-realtime');

    const seen = mock.sessions.at(-1)?.events ?? [];
    expect(seen[0]).toBe('this is not json');
    expect(seen.map((e: any) => e.event_id)).not.toContain('evt_swap');
    expect(seen).toHaveLength(2);
    conn.ws.close();
    await conn.closed;
  });

  it('bills a response the client walked away from: cancelled upstream, charged from its response.done', async () => {
    const { userId, apiKey } = await newCaller(10_000_000);
    const conn = await dial(realtimeUrl('gpt-realtime'), { headers: { authorization: `Bearer ${apiKey}` } });
    if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
    await conn.next('session.created');
    conn.send({ type: 'response.create', response: { metadata: { slow: 'true' } } });
    await conn.next('response.output_audio.delta');
    conn.ws.close();
    await conn.closed;
    await expect.poll(async () => (await logRows(userId)).length).toBe(1);
    const upstream = mock.sessions.at(-1);
    expect(upstream?.events.map((e: any) => e.type)).toEqual(['response.create', 'response.cancel']);
    const [row] = await logRows(userId);
    expect(row.completion_tokens).toBeGreaterThan(0);
    expect(row.completion_tokens).toBeLessThan(400 * AUDIO_TOKENS_PER_DELTA);
    expect(row.quota).toBeGreaterThan(0);
    expect(Number((await userRow(userId)).quota)).toBe(10_000_000 - row.quota);
    await expect.poll(() => heldBy(userId)).toBe(0);
  });

  // Work done is never billed zero: a response the upstream never finishes is billed from what was relayed.
  for (const [how, flag] of [
    ['never answers the cancel of a client that left', 'deaf'],
    ['drops mid-response', 'drop'],
  ] as const)
    it(`bills a response whose upstream ${how}, from the audio relayed`, async () => {
      const { userId, apiKey } = await newCaller(10_000_000);
      const conn = await dial(realtimeUrl('gpt-realtime'), {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
      await conn.next('session.created');
      conn.send({ type: 'response.create', response: { metadata: { [flag]: 'true' } } });
      await expect
        .poll(() => conn.events.filter((e: any) => e.type === 'response.output_audio.delta').length)
        .toBe(STALLED_DELTAS);
      if (flag === 'deaf') conn.ws.close();
      await conn.closed;
      await expect.poll(async () => (await logRows(userId)).length, { timeout: 15_000 }).toBe(1);
      const [row] = await logRows(userId);
      // 22 deltas of 100 ms of pcm16: 2.2 s of assistant audio at about 20 tokens a second.
      expect(row.completion_tokens).toBe(44);
      expect(row.quota).toBeGreaterThan(0);
      expect(JSON.parse(String(row.other))).toMatchObject({ usage_estimated: true, audio_output: 44 });
      expect(Number((await userRow(userId)).quota)).toBe(10_000_000 - row.quota);
      await expect.poll(() => heldBy(userId)).toBe(0);
    });

  it('reaches channels through the SSRF guard and the channel proxy', async () => {
    await seedChannel(server.ctx, { baseUrl: 'http://169.254.169.254', key: 'sk-x', models: ['rt-ssrf'] });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-openai',
      models: ['rt-proxy'],
      setting: { proxy: httpProxy.url },
    });
    await seedChannel(server.ctx, {
      baseUrl: mock.url,
      key: 'sk-upstream-openai',
      models: ['rt-socks'],
      setting: { proxy: socksProxy.url },
    });
    const { apiKey } = await newCaller(10_000_000);
    const auth = { authorization: `Bearer ${apiKey}` };

    const refused = await dial(realtimeUrl('rt-ssrf'), { headers: auth });
    if (!isConn(refused)) throw new Error('refused before the upgrade');
    expect(await refused.closed).toEqual({ code: 1011, reason: 'upstream_error.upstream_address_refused' });
    expect(refused.events[0].error.code).toBe('upstream_address_refused');

    const before = httpProxy.targets.length;
    const proxied = await dial(realtimeUrl('rt-proxy'), { headers: auth });
    if (!isConn(proxied)) throw new Error(`refused: ${JSON.stringify(proxied)}`);
    await proxied.next('session.created');
    expect(httpProxy.targets.slice(before)).toEqual([new URL(mock.url).host]);
    proxied.ws.close();

    const socks = await dial(realtimeUrl('rt-socks'), { headers: auth });
    if (!isConn(socks)) throw new Error('refused before the upgrade');
    expect((await socks.closed).reason).toBe('upstream_error.channel_proxy_unsupported');

    // The proxy's host is held to the same rule: a metadata literal, or a name that resolves to one.
    const proxyPort = new URL(httpProxy.url).port;
    setResolverForTests(async (host) => (host === 'metadata.test' ? ['127.0.0.1', '169.254.169.254'] : []));
    try {
      for (const [model, proxy] of [
        ['rt-proxy-meta', 'http://[::ffff:169.254.169.254]:80'],
        ['rt-proxy-named', `http://metadata.test:${proxyPort}`],
      ]) {
        await seedChannel(server.ctx, {
          baseUrl: mock.url,
          key: 'sk-x',
          models: [model],
          setting: { proxy },
        });
        const targets = httpProxy.targets.length;
        const conn = await dial(realtimeUrl(model), { headers: auth });
        if (!isConn(conn)) throw new Error('refused before the upgrade');
        expect(await conn.closed, proxy).toEqual({
          code: 1011,
          reason: 'upstream_error.upstream_address_refused',
        });
        expect(httpProxy.targets.length).toBe(targets);
      }
    } finally {
      setResolverForTests(null);
    }
  });

  it('counts sessions in the model request rate limit', async () => {
    const o = server.ctx.options;
    await o.set('ModelRequestRateLimitEnabled', 'true');
    await o.set('ModelRequestRateLimitDurationMinutes', '1');
    await o.set('ModelRequestRateLimitCount', '1');
    try {
      const { apiKey } = await newCaller(1_000_000);
      const auth = { authorization: `Bearer ${apiKey}` };
      const first = await dial(realtimeUrl('gpt-realtime'), { headers: auth });
      if (!isConn(first)) throw new Error('refused');
      await first.next('session.created');
      const second = await dial(realtimeUrl('gpt-realtime'), { headers: auth });
      if (!isConn(second)) throw new Error('refused before the upgrade');
      expect(await second.closed).toEqual({
        code: 4000,
        reason: 'rate_limit_error.model_request_rate_limited',
      });
      expect(second.events[0].error.type).toBe('rate_limit_error');
      first.ws.close();
      await first.closed;
    } finally {
      await o.set('ModelRequestRateLimitEnabled', 'false');
    }
  });

  it("picks channels by the group's routing mode, like the other relays", async () => {
    await server.ctx.options.set('GroupRoutingMode', JSON.stringify({ 'rt-turns': 'round_robin' }));
    try {
      for (const key of ['sk-upstream-openai', 'sk-upstream-mini'])
        await seedChannel(server.ctx, {
          baseUrl: mock.url,
          key,
          models: ['gpt-realtime'],
          group: 'rt-turns',
        });
      const user = await seedUser(server.ctx, { quota: 1_000_000, group: 'rt-turns' });
      const { apiKey } = await seedToken(server.ctx, { userId: user.id, unlimited: true });
      const before = mock.handshakes.length;
      for (let i = 0; i < 4; i++) {
        const conn = await dial(realtimeUrl('gpt-realtime'), {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        if (!isConn(conn)) throw new Error(`refused: ${JSON.stringify(conn)}`);
        await conn.next('session.created');
        conn.ws.close();
        await conn.closed;
      }
      const keys = mock.handshakes.slice(before).map((h) => h.headers.authorization);
      expect(keys).toHaveLength(4);
      // In turn: never the same channel twice in a row, each channel twice.
      for (let i = 1; i < 4; i++) expect(keys[i]).not.toBe(keys[i - 1]);
      expect(new Set(keys).size).toBe(2);
    } finally {
      await server.ctx.options.set('GroupRoutingMode', '{}');
    }
  });

  it('ends open sessions with 1001 when the gateway shuts down, billing what ran', async () => {
    const other = await startServer();
    try {
      await other.ctx.options.set(
        'ModelRatio',
        table((r) => r.model),
      );
      await other.ctx.options.set(
        'CompletionRatio',
        table((r) => r.completion),
      );
      await seedChannel(other.ctx, {
        baseUrl: mock.url,
        key: 'sk-upstream-openai',
        models: ['gpt-realtime'],
      });
      const user = await seedUser(other.ctx, { quota: 1_000_000 });
      const tk = await seedToken(other.ctx, { userId: user.id, unlimited: true });
      const conn = await dial(`${other.url.replace('http://', 'ws://')}/v1/realtime?model=gpt-realtime`, {
        headers: { authorization: `Bearer ${tk.apiKey}` },
      });
      if (!isConn(conn)) throw new Error('refused');
      await conn.next('session.created');
      conn.send({ type: 'response.create', response: { output_modalities: ['text'] } });
      await conn.next('response.done');
      await other.app.close();
      expect(await conn.closed).toEqual({ code: 1001, reason: 'the gateway is shutting down' });
      await flushLedger(other.ctx);
      const row = await other.ctx.db.db
        .selectFrom('users')
        .select(['used_quota'])
        .where('id', '=', user.id)
        .executeTakeFirstOrThrow();
      expect(Number(row.used_quota)).toBeGreaterThan(0);
    } finally {
      await other.close().catch(() => {});
    }
  });

  it('refuses upgrades on every other path with a 404, and plain requests still work', async () => {
    const { apiKey } = await newCaller(1_000_000);
    for (const path of ['/v1/chat/completions', '/', '/v1/realtime/extra']) {
      const r = await dial(`${wsUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      if (isConn(r)) throw new Error(`upgraded on ${path}`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(models.status).toBe(200);
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
