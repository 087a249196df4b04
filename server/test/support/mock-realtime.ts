import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A mock OpenAI Realtime server (and Azure's realtime endpoint) on 127.0.0.1. It checks the key as OpenAI does
 * (a refused handshake is an HTTP 401 with OpenAI's error body), speaks the GA protocol, or the beta one when
 * asked with `OpenAI-Beta: realtime=v1`, and answers with the real event shapes of the API reference:
 * session.created, conversation items, and for each response.create: response.created, output item and content
 * part events, text or audio deltas with their transcript, the done events, and response.done with usage
 * (input text/audio/cached tokens, output text/audio tokens) that follows what the session sent.
 */
export interface RealtimeMock {
  url: string;
  /** Handshakes that reached the mock (accepted or not), with their headers. */
  handshakes: { path: string; query: URLSearchParams; headers: IncomingHttpHeaders; status: number }[];
  /** Client events each accepted session received, in order (parsed; raw text when not JSON). */
  sessions: { events: unknown[]; socket: WebSocket; closed: { code: number; reason: string } | null }[];
  /** Keys that answer the handshake with this status (401 for unknown keys). */
  statusFor: Map<string, number>;
  close(): Promise<void>;
}

/** A text answer: one token per delta. */
export const TEXT_DELTAS = ['Hello', ' from', ' the', ' realtime', ' mock.'];
/** Audio answers: this many audio deltas of this many tokens each (and a transcript, one token per word). */
export const AUDIO_DELTAS = 4;
export const AUDIO_TOKENS_PER_DELTA = 25;
export const AUDIO_TRANSCRIPT = ['Hi', ' there', '!'];
/** A stalled response's audio: this many deltas of this many bytes (100 ms of pcm16 at 24 kHz each). */
export const STALLED_DELTAS = 22;
export const STALLED_DELTA_BYTES = 4_800;
/** Instructions count as this many text input tokens in every response. */
export const INSTRUCTION_TOKENS = 17;
/** Input audio: one token per this many bytes of PCM16 appended. */
export const AUDIO_BYTES_PER_TOKEN = 800;

const AZURE_VERSION = /^\d{4}-\d{2}-\d{2}(-preview)?$/;

const eventId = () => `event_${randomBytes(10).toString('hex')}`;
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

interface Conversation {
  textTokens: number;
  audioTokens: number;
  /** Input of the previous response: served from the prompt cache in the next one. */
  cachedText: number;
  cachedAudio: number;
  bufferedAudio: number;
}

export async function startRealtimeMock(validKeys: string[]): Promise<RealtimeMock> {
  const handshakes: RealtimeMock['handshakes'] = [];
  const sessions: RealtimeMock['sessions'] = [];
  const statusFor = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(426).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const refuse = (socket: Duplex, status: number, code: string, message: string) => {
    const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
    socket.end(
      `HTTP/1.1 ${status} Error\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const azure = url.pathname === '/openai/realtime';
    const key = azure
      ? String(req.headers['api-key'] ?? '')
      : String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    const model = azure ? url.searchParams.get('deployment') : url.searchParams.get('model');
    let status = 101;
    if (!azure && url.pathname !== '/v1/realtime') status = 404;
    else if (!validKeys.includes(key) && !statusFor.has(key)) status = 401;
    else if (statusFor.has(key)) status = statusFor.get(key) as number;
    else if (!model) status = 400;
    else if (azure && !AZURE_VERSION.test(url.searchParams.get('api-version') ?? '')) status = 400;
    handshakes.push({ path: url.pathname, query: url.searchParams, headers: req.headers, status });
    if (status === 401)
      return refuse(
        socket,
        401,
        'invalid_api_key',
        `Incorrect API key provided: ${key.slice(0, 5)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
      );
    if (status !== 101)
      return refuse(socket, status, 'mock_refusal', `the mock answers ${status} for this key`);
    const beta = String(req.headers['openai-beta'] ?? '').includes('realtime=v1');
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, String(model), beta));
  });

  function serve(ws: WebSocket, model: string, beta: boolean) {
    const record: RealtimeMock['sessions'][number] = { events: [], socket: ws, closed: null };
    sessions.push(record);
    const conv: Conversation = {
      textTokens: 0,
      audioTokens: 0,
      cachedText: 0,
      cachedAudio: 0,
      bufferedAudio: 0,
    };
    const running = new Map<string, { cancelled: boolean }>();
    const send = (e: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: e.type, event_id: eventId(), ...e }));
    };
    const sessionId = `sess_${randomBytes(8).toString('hex')}`;
    const session = (extra: Record<string, unknown> = {}) =>
      beta
        ? { id: sessionId, object: 'realtime.session', model, modalities: ['text', 'audio'], ...extra }
        : {
            type: 'realtime',
            id: sessionId,
            object: 'realtime.session',
            model,
            output_modalities: ['audio'],
            ...extra,
          };
    send({ type: 'session.created', session: session() });
    ws.on('close', (code, reason) => {
      record.closed = { code, reason: reason.toString() };
      for (const r of running.values()) r.cancelled = true;
    });

    ws.on('message', (data, isBinary) => {
      const text = data.toString();
      let e: any;
      try {
        e = JSON.parse(text);
      } catch {
        record.events.push(text);
        send({
          type: 'error',
          error: {
            type: 'invalid_request_error',
            code: 'invalid_json',
            message: 'The server failed to parse the event: it is not valid JSON.',
            param: null,
            event_id: null,
          },
        });
        return;
      }
      record.events.push(e);
      if (isBinary) return;
      switch (e.type) {
        case 'session.update':
          send({ type: 'session.updated', session: session(e.session ?? {}) });
          break;
        case 'conversation.item.create': {
          for (const part of e.item?.content ?? [])
            if (typeof part.text === 'string') conv.textTokens += words(part.text);
          const item = {
            id: e.item?.id ?? `item_${randomBytes(6).toString('hex')}`,
            object: 'realtime.item',
            status: 'completed',
            ...e.item,
          };
          if (beta) send({ type: 'conversation.item.created', previous_item_id: null, item });
          else {
            send({ type: 'conversation.item.added', previous_item_id: null, item });
            send({ type: 'conversation.item.done', previous_item_id: null, item });
          }
          break;
        }
        case 'input_audio_buffer.append':
          conv.bufferedAudio += Buffer.from(String(e.audio ?? ''), 'base64').length;
          break;
        case 'input_audio_buffer.commit': {
          conv.audioTokens += Math.ceil(conv.bufferedAudio / AUDIO_BYTES_PER_TOKEN);
          conv.bufferedAudio = 0;
          send({
            type: 'input_audio_buffer.committed',
            previous_item_id: null,
            item_id: `item_${randomBytes(6).toString('hex')}`,
          });
          break;
        }
        case 'response.create':
          void respond(e.response ?? {});
          break;
        case 'response.cancel': {
          const r = running.get(e.response_id) ?? [...running.values()][0];
          if (r) r.cancelled = true;
          break;
        }
        default:
          send({
            type: 'error',
            error: {
              type: 'invalid_request_error',
              code: 'invalid_value',
              message: `Invalid value: '${e.type}'. Supported values are: 'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'conversation.item.create', 'response.create', 'response.cancel'.`,
              param: 'type',
              event_id: e.event_id ?? null,
            },
          });
      }
    });

    /** One response: audio unless the client asked for text only; `metadata.slow` streams audio until cancelled. */
    async function respond(ask: Record<string, any>) {
      const modalities: string[] = ask.output_modalities ?? ask.modalities ?? ['audio'];
      const audio = modalities.includes('audio');
      const slow = ask.metadata?.slow === 'true';
      const id = `resp_${randomBytes(8).toString('hex')}`;
      const state = { cancelled: false };
      running.set(id, state);
      const itemId = `item_${randomBytes(6).toString('hex')}`;
      const base = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
      const response = (status: string, usage: unknown) => ({
        object: 'realtime.response',
        id,
        status,
        status_details: status === 'cancelled' ? { type: 'cancelled', reason: 'client_cancelled' } : null,
        output: [],
        conversation_id: 'conv_mock',
        ...(beta ? { modalities } : { output_modalities: modalities }),
        usage,
        metadata: ask.metadata ?? null,
      });
      send({ type: 'response.created', response: response('in_progress', null) });
      const item = {
        id: itemId,
        object: 'realtime.item',
        type: 'message',
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      send({ type: 'response.output_item.added', response_id: id, output_index: 0, item });
      const partType = audio ? (beta ? 'audio' : 'output_audio') : beta ? 'text' : 'output_text';
      send({ type: 'response.content_part.added', ...base, part: { type: partType } });
      const names = beta
        ? { text: 'response.text', audio: 'response.audio', transcript: 'response.audio_transcript' }
        : {
            text: 'response.output_text',
            audio: 'response.output_audio',
            transcript: 'response.output_audio_transcript',
          };
      let textOut = 0;
      let audioOut = 0;
      // `metadata.deaf`: streams STALLED_DELTAS audio deltas, then stalls, deaf to response.cancel;
      // `metadata.drop`: the same, then the connection drops. Neither sends response.done.
      if (ask.metadata?.deaf === 'true' || ask.metadata?.drop === 'true') {
        for (let i = 0; i < STALLED_DELTAS; i++)
          send({
            type: `${names.audio}.delta`,
            ...base,
            delta: randomBytes(STALLED_DELTA_BYTES).toString('base64'),
          });
        if (ask.metadata.drop === 'true') ws.terminate();
        return;
      }
      if (audio) {
        for (let i = 0; slow ? !state.cancelled && i < 400 : i < AUDIO_DELTAS; i++) {
          send({ type: `${names.audio}.delta`, ...base, delta: randomBytes(1200).toString('base64') });
          audioOut += AUDIO_TOKENS_PER_DELTA;
          if (slow) await new Promise((r) => setTimeout(r, 20));
        }
        for (const d of AUDIO_TRANSCRIPT) {
          send({ type: `${names.transcript}.delta`, ...base, delta: d });
          textOut += 1;
        }
        send({ type: `${names.audio}.done`, ...base });
        send({ type: `${names.transcript}.done`, ...base, transcript: AUDIO_TRANSCRIPT.join('') });
      } else {
        for (const d of TEXT_DELTAS) {
          send({ type: `${names.text}.delta`, ...base, delta: d });
          textOut += 1;
        }
        send({ type: `${names.text}.done`, ...base, text: TEXT_DELTAS.join('') });
      }
      send({ type: 'response.content_part.done', ...base, part: { type: partType } });
      send({
        type: 'response.output_item.done',
        response_id: id,
        output_index: 0,
        item: { ...item, status: 'completed' },
      });
      const textIn = conv.textTokens + INSTRUCTION_TOKENS;
      const audioIn = conv.audioTokens;
      const cachedText = Math.min(conv.cachedText, textIn);
      const cachedAudio = Math.min(conv.cachedAudio, audioIn);
      const usage = {
        total_tokens: textIn + audioIn + textOut + audioOut,
        input_tokens: textIn + audioIn,
        output_tokens: textOut + audioOut,
        input_token_details: {
          text_tokens: textIn,
          audio_tokens: audioIn,
          image_tokens: 0,
          cached_tokens: cachedText + cachedAudio,
          cached_tokens_details: { text_tokens: cachedText, audio_tokens: cachedAudio, image_tokens: 0 },
        },
        output_token_details: { text_tokens: textOut, audio_tokens: audioOut },
      };
      // What this response said joins the conversation; what it read is cached for the next one.
      conv.cachedText = textIn;
      conv.cachedAudio = audioIn;
      conv.textTokens += textOut;
      conv.audioTokens += audioOut;
      running.delete(id);
      send({ type: 'response.done', response: response(state.cancelled ? 'cancelled' : 'completed', usage) });
    }
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handshakes,
    sessions,
    statusFor,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
