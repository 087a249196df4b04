import type { ClientRequestArgs } from 'node:http';
import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { HttpsProxyAgent } from 'https-proxy-agent';
import WebSocket from 'ws';
import type { AppContext } from '../../context.ts';
import { proxyRefusal } from '../../infra/proxy.ts';
import { adminUrlPolicy, guardedLookup, literalRefusal } from '../../infra/ssrf.ts';
import { networkError, PROXY_REFUSED } from '../call/upstream-client.ts';
import { RelayError, upstreamError } from '../relay-error.ts';
import type { ChannelEntry } from '../table-cache/channels.ts';

/** Channel types whose servers have the Realtime WebSocket API. */
export const REALTIME_TYPES: ReadonlySet<number> = new Set([ChannelType.OpenAI, ChannelType.Azure]);

/** Azure's api-version for realtime when neither the client nor the channel names one. */
const AZURE_API_VERSION = '2025-04-01-preview';

/** Largest error body read from a refused handshake. */
const ERROR_BODY_LIMIT = 64 * 1024;

export interface RealtimeTarget {
  url: string;
  headers: Record<string, string>;
}

const wsBase = (base: string) => base.replace(/^http(s?):\/\//i, 'ws$1://');

/**
 * Where a channel serves a realtime session for `model` (the upstream name) and how it wants the key:
 * OpenAI `wss://api.openai.com/v1/realtime?model=...` with a Bearer key, Azure
 * `wss://{resource}/openai/realtime?api-version=...&deployment=...` with `api-key`. The beta protocol is asked
 * for with `OpenAI-Beta: realtime=v1` when the client speaks it.
 */
export function realtimeTarget(
  ch: ChannelEntry,
  model: string,
  beta: boolean,
  clientApiVersion: string,
): RealtimeTarget {
  const headers: Record<string, string> = {};
  let url: string;
  if (ch.type === ChannelType.Azure) {
    const version = clientApiVersion || ch.other.trim() || AZURE_API_VERSION;
    // Azure deployments cannot hold dots: the relay's Azure host drops them the same way.
    const deployment = model.replaceAll('.', '');
    url = `${wsBase(ch.baseUrl)}/openai/realtime?api-version=${encodeURIComponent(version)}&deployment=${encodeURIComponent(deployment)}`;
    headers['api-key'] = ch.key;
  } else {
    const base = ch.baseUrl || channelTypeInfo(ch.type)?.defaultBaseUrl || 'https://api.openai.com';
    url = `${wsBase(base)}/v1/realtime?model=${encodeURIComponent(model)}`;
    headers.authorization = `Bearer ${ch.key}`;
    if (ch.organization) headers['openai-organization'] = ch.organization;
  }
  if (beta) headers['openai-beta'] = 'realtime=v1';
  return { url, headers };
}

const channelProxyError = (message: string, code: string) =>
  new RelayError(502, message, 'upstream_error', code, null, false);

/**
 * Opens the upstream realtime socket: directly through the SSRF guard (private hosts allowed, link-local and
 * metadata addresses refused, as for every channel call), or through the channel's http(s) proxy. Resolves once
 * the upstream accepted the handshake, paused until the session resumes it; a refused handshake is the upstream's error (its status, its message with
 * the key and address scrubbed), a failed connection a retryable 502 or 504.
 */
export function connectUpstream(
  ctx: AppContext,
  ch: ChannelEntry,
  target: RealtimeTarget,
  timeoutMs: number,
): Promise<WebSocket> {
  const policy = () => adminUrlPolicy(ctx.options);
  // ws hands its options to http.request, so the connect-time lookup applies as for the HTTP relay.
  const options: WebSocket.ClientOptions & Pick<ClientRequestArgs, 'lookup'> = {
    headers: target.headers,
    handshakeTimeout: timeoutMs,
    perMessageDeflate: false,
    followRedirects: false,
  };
  if (ch.proxy) {
    let proxy: URL;
    try {
      proxy = new URL(ch.proxy);
    } catch {
      proxy = new URL('invalid:');
    }
    if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:')
      return Promise.reject(
        channelProxyError(
          "realtime sessions can go through an http or https proxy only; the channel's proxy setting is not one",
          'channel_proxy_unsupported',
        ),
      );
    // The proxy's host is held to the channel rule: literals here, names at connect time.
    if (proxyRefusal(ch.proxy, policy()) !== undefined) return Promise.reject(PROXY_REFUSED);
    options.agent = new HttpsProxyAgent(proxy, { lookup: guardedLookup(policy) } as any);
  } else {
    if (literalRefusal(target.url, policy()) !== undefined)
      return Promise.reject(networkError(Object.assign(new Error('refused'), { code: 'ESSRF' })));
    options.lookup = guardedLookup(policy);
  }
  const secrets = [ch.key, ch.baseUrl];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(target.url, options);
    const fail = (err: RelayError) => {
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(err);
    };
    ws.once('open', () => {
      // Events (session.created first) wait until the session is there to relay them.
      ws.pause();
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      resolve(ws);
    });
    ws.once('unexpected-response', (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= ERROR_BODY_LIMIT) chunks.push(c);
      });
      const done = () => {
        req.destroy();
        fail(upstreamError(res.statusCode ?? 502, Buffer.concat(chunks).toString('utf8'), secrets));
      };
      res.once('end', done);
      res.once('error', done);
    });
    ws.once('error', (err) => {
      // ws reports its own handshake timeout as a plain error.
      if (/handshake has timed out/i.test(err.message))
        return fail(
          new RelayError(504, 'upstream timed out', 'upstream_error', 'upstream_timeout', null, false),
        );
      fail(networkError(err));
    });
  });
}
