import { connect as netConnect } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { describe, expect, it } from 'vitest';
import {
  AUDIO_DELTAS,
  AUDIO_TOKENS_PER_DELTA,
  AUDIO_TRANSCRIPT,
  TEXT_DELTAS,
} from './support/mock-realtime.ts';
import { dial, isConn, track } from './support/realtime-client.ts';
import { expectedQuota, realtimeRelay } from './support/realtime-relay.ts';
import { startServer } from './support/server.ts';

/**
 * The OpenAI Realtime relay's sessions: `GET /v1/realtime?model=` upgraded to a WebSocket and relayed to an
 * OpenAI or Azure channel (a mock realtime server speaking the API's events), events passed both ways in
 * order, each response.done billed from its usage with one usage log row per response, the key checked
 * before the upgrade, and what is refused: unknown models, a session.update that changes the model, upgrades
 * on other paths. Billing when a session ends early: realtime-billing.test.ts; channels, proxies and limits:
 * realtime-routing.test.ts.
 */
describe('relay: OpenAI Realtime over WebSocket', () => {
  const relay = realtimeRelay(startServer);

  it('relays the official GA client both ways in order, billing each response.done to the unit with one log row each', async () => {
    const { userId, tokenId, apiKey } = await relay.newCaller(10_000_000, { remain: 5_000_000 });
    const client = new OpenAI({ apiKey, baseURL: `${relay.server.url}/v1`, maxRetries: 0 });
    // The SDK always dials wss://; the test gateway listens on plain HTTP, so the SDK's socket is plain TCP.
    const rt = await OpenAIRealtimeWS.create(client, {
      model: 'gpt-realtime',
      options: { createConnection: () => netConnect(relay.port, '127.0.0.1') },
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
    const upstream = relay.mock.sessions.at(-1);
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
    const hs = relay.mock.handshakes.at(-1);
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
    await expect.poll(async () => (await relay.logRows(userId)).length).toBe(2);
    const rows = await relay.logRows(userId);
    expect(rows.map((r) => r.quota)).toEqual([q1, q2]);
    expect(rows.map((r) => r.prompt_tokens)).toEqual([u1.input_tokens, u2.input_tokens]);
    expect(rows.map((r) => r.completion_tokens)).toEqual([u1.output_tokens, u2.output_tokens]);
    for (const [i, r] of rows.entries()) {
      expect(r.model_name).toBe('gpt-realtime');
      expect(r.channel_id).toBe(relay.openaiChannel);
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
    const user = await relay.userRow(userId);
    expect(Number(user.quota)).toBe(10_000_000 - q1 - q2);
    expect(Number(user.used_quota)).toBe(q1 + q2);
    expect(Number(user.request_count)).toBe(2);
    expect(Number((await relay.tokenRow(tokenId)).remain_quota)).toBe(5_000_000 - q1 - q2);
    await expect.poll(() => relay.heldBy(userId)).toBe(0);
  });

  it('takes the key from the subprotocol as browsers send it, echoes `realtime`, and speaks beta to an Azure channel', async () => {
    const { userId, apiKey } = await relay.newCaller(10_000_000);
    const conn = await dial(relay.realtimeUrl('gpt-4o-realtime-preview'), {
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

    const hs = relay.mock.handshakes.at(-1);
    expect(hs?.path).toBe('/openai/realtime');
    expect(hs?.query.get('api-version')).toBe('2024-10-01-preview');
    expect(hs?.query.get('deployment')).toBe('gpt-4o-realtime-preview-2024-12-17');
    expect(hs?.headers['api-key']).toBe('azure-key-1');
    expect(hs?.headers['openai-beta']).toBe('realtime=v1');
    expect(JSON.stringify(hs?.headers)).not.toContain(apiKey.slice(3));

    conn.ws.close();
    await conn.closed;
    await expect.poll(async () => (await relay.logRows(userId)).length).toBe(1);
    const [row] = await relay.logRows(userId);
    const q = expectedQuota('gpt-4o-realtime-preview', done.response.usage);
    expect(row.quota).toBe(q);
    expect(row.model_name).toBe('gpt-4o-realtime-preview');
    expect(JSON.parse(String(row.other)).upstream_model_name).toBe('gpt-4o-realtime-preview-2024-12-17');
    expect(Number((await relay.userRow(userId)).quota)).toBe(10_000_000 - q);
  });

  it('refuses a bad or missing key with a 401 before the upgrade, reaching no upstream', async () => {
    const before = relay.mock.handshakes.length;
    const attempts = [
      dial(relay.realtimeUrl('gpt-realtime'), { headers: { authorization: 'Bearer sk-notarealkey' } }),
      dial(relay.realtimeUrl('gpt-realtime'), {
        protocols: ['realtime', 'openai-insecure-api-key.sk-notarealkey'],
      }),
      dial(relay.realtimeUrl('gpt-realtime')),
    ];
    for (const r of await Promise.all(attempts)) {
      if (isConn(r)) throw new Error('the upgrade was accepted');
      expect(r.status).toBe(401);
      expect(r.body.error.type).toBe('invalid_request_error');
      expect(r.body.error.code).toBe('invalid_api_key');
      expect(r.headers['x-oneapi-request-id']).toBeTruthy();
      expect(JSON.stringify(r.body)).not.toContain('notarealkey');
    }
    expect(relay.mock.handshakes.length).toBe(before);
  });

  it('ends a session for an unknown or missing model with an error event and a clear close reason', async () => {
    const { apiKey } = await relay.newCaller(1_000_000);
    for (const [url, code] of [
      [relay.realtimeUrl('gpt-nonexistent-model'), 'model_not_found'],
      [`${relay.wsUrl}/v1/realtime`, 'model_required'],
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

  it('passes a malformed event on (answered as OpenAI does) and refuses a session.update that changes the model', async () => {
    const { apiKey } = await relay.newCaller(1_000_000);
    const conn = await relay.session('gpt-realtime', apiKey);
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

    const seen = relay.mock.sessions.at(-1)?.events ?? [];
    expect(seen[0]).toBe('this is not json');
    expect(seen.map((e: any) => e.event_id)).not.toContain('evt_swap');
    expect(seen).toHaveLength(2);
    conn.ws.close();
    await conn.closed;
  });

  it('refuses upgrades on every other path with a 404, and plain requests still work', async () => {
    const { apiKey } = await relay.newCaller(1_000_000);
    for (const path of ['/v1/chat/completions', '/', '/v1/realtime/extra']) {
      const r = await dial(`${relay.wsUrl}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      if (isConn(r)) throw new Error(`upgraded on ${path}`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
    const models = await fetch(`${relay.server.url}/v1/models`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(models.status).toBe(200);
  });
});
