import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import { newRequestId, REQUEST_ID_HEADER } from '../../infra/request-id.ts';
import { authenticate, checkAllowedIp } from '../admit/auth.ts';
import { LaneRequest } from '../http/lane/lane.ts';
import { RelayError, relayFailure } from '../relay-error.ts';
import type { RelayState } from '../relay-state.ts';
import { failureEvent } from './events.ts';
import { type OpenedSession, openSession } from './open.ts';
import { chosenProtocol, wantsBeta } from './protocols.ts';
import { RealtimeSession } from './session.ts';

const REALTIME_PATHS = new Set(['/v1/realtime', '/v1/realtime/']);
const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;

/** Answers an upgrade request with a plain HTTP error (OpenAI's error body) and closes the connection. */
function refuse(socket: Duplex, err: unknown, requestId: string, log: FastifyBaseLogger): void {
  if (socket.destroyed) return;
  const { status, body } = relayFailure(err, requestId, log);
  const text = JSON.stringify(body);
  socket.once('finish', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}

/**
 * The OpenAI Realtime relay on the gateway's HTTP server: `GET /v1/realtime?model=...` upgrades to a WebSocket
 * relayed to an OpenAI or Azure channel. The key (Authorization, or the `openai-insecure-api-key.<key>`
 * subprotocol browsers send) is checked before the upgrade, and a bad one refused with a 401; the upstream is
 * connected (with retries over channels) before the client's upgrade completes. Anything that goes wrong after
 * the key was accepted reaches the client as an `error` event and a close with a reason, which browsers (who
 * cannot read a refused handshake) can show. Every other upgrade is refused with a 404.
 */
export function attachRealtime(app: FastifyInstance, state: RelayState): void {
  const { ctx } = state;
  const log = ctx.log as FastifyBaseLogger;
  const trusted = ctx.config.trustedProxies;
  const trust = trusted.length ? proxyAddr.compile(trusted) : null;
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: ctx.config.maxRequestBodyMb * 1024 * 1024,
    handleProtocols: (offered) => chosenProtocol(offered),
  });
  const sessions = new Set<RealtimeSession>();
  let closing = false;

  async function upgrade(raw: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const req = new LaneRequest(raw, newRequestId(), log, trust);
    socket.on('error', (err) => req.log.debug({ err: err.message }, 'realtime client socket error'));
    const url = raw.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (!REALTIME_PATHS.has(path) || raw.method !== 'GET')
      return refuse(
        socket,
        new RelayError(404, `Invalid URL (upgrade ${path})`, 'invalid_request_error', 'not_found'),
        req.id,
        req.log,
      );
    if (closing)
      return refuse(
        socket,
        new RelayError(503, 'the gateway is shutting down', 'new_api_error', 'shutting_down'),
        req.id,
        req.log,
      );
    const version = raw.headers['sec-websocket-version'];
    if (
      String(raw.headers.upgrade).toLowerCase() !== 'websocket' ||
      !WS_KEY.test(String(raw.headers['sec-websocket-key'] ?? '')) ||
      (version !== '13' && version !== '8')
    )
      return refuse(socket, new RelayError(400, 'not a valid WebSocket handshake'), req.id, req.log);

    let opened: OpenedSession | null = null;
    let failure: unknown = null;
    try {
      const caller = await authenticate(state, req, { subprotocol: true });
      checkAllowedIp(caller.token, req.ip);
      try {
        const query = req.query;
        opened = await openSession(state, req, caller, {
          model: query.model ?? '',
          beta: wantsBeta(raw.headers),
          apiVersion: query['api-version'] ?? '',
        });
      } catch (err) {
        failure = err;
      }
    } catch (err) {
      return refuse(socket, err, req.id, req.log);
    }
    if (socket.destroyed || !socket.writable) {
      // The client left while the upstream was being reached.
      if (opened) {
        opened.upstream.terminate();
        state.ledger.release(opened.setup.hold);
      }
      return;
    }
    let upgraded = false;
    socket.once('close', () => {
      // ws refused the handshake after all: nothing must stay open or held.
      if (upgraded || !opened) return;
      opened.upstream.terminate();
      state.ledger.release(opened.setup.hold);
    });
    wss.handleUpgrade(raw, socket, head, (client) => {
      upgraded = true;
      if (!opened) {
        const { event, code, reason } = failureEvent(failure, req.id, req.log);
        client.send(JSON.stringify(event));
        client.close(code, reason);
        return;
      }
      const session = new RealtimeSession(client, opened.upstream, opened.setup);
      sessions.add(session);
      void session.done.then(() => sessions.delete(session));
      opened.succeeded();
      if (closing) void session.finish(1001, 'the gateway is shutting down');
    });
  }

  app.server.on('upgrade', (raw: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(raw, socket, head).catch((err) => {
      log.error({ err }, 'realtime upgrade failed');
      socket.destroy();
    });
  });
  // Sessions can last for many minutes: a shutdown ends them (billing what ran) instead of waiting.
  app.addHook('preClose', async () => {
    closing = true;
    await Promise.all([...sessions].map((s) => s.finish(1001, 'the gateway is shutting down')));
    wss.close();
  });
}
