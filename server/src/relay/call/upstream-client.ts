import { Agent, type Dispatcher, errors, type FormData } from 'undici';
import type { AppContext } from '../../context.ts';
import { createProxyDispatchers, proxyRefusal } from '../../infra/proxy.ts';
import { ALLOW_LINK_LOCAL_OPTION, adminUrlPolicy, guardedLookup, literalRefusal } from '../../infra/ssrf.ts';
import { RelayError } from '../relay-error.ts';
import type { CallAbort } from './call-abort.ts';
import { SilenceWatch } from './silence-watch.ts';
import { DispatchedCall, type UpstreamResponse } from './upstream-response.ts';

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | FormData;
  /** POST unless told otherwise (a provider polling a task). */
  method?: 'GET' | 'POST';
  stream: boolean;
  /** Aborted when the client goes away or the total time runs out. */
  signal: CallAbort | AbortSignal;
  /** The channel's `setting.proxy` (http, https or socks5 URL); empty = direct. */
  proxy?: string;
}

/**
 * Upstream HTTP: one pooled keep-alive agent for every provider, or the channel's proxy. Timeouts: STREAMING_TIMEOUT is the longest a
 * stream may stay silent (before the headers and between chunks); RELAY_TIMEOUT bounds the whole call and is
 * enforced by the caller's signal.
 */
export function createUpstream(ctx: AppContext) {
  // Channel base URLs are the administrator's: private and loopback hosts are fine, link-local and cloud
  // metadata addresses are refused (infra/ssrf.ts). Names are checked at connect time, once per connection;
  // address literals once per origin, remembered until the option changes.
  const policy = () => adminUrlPolicy(ctx.options);
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: 512,
    connect: { lookup: guardedLookup(policy) },
  });
  // Keyed by origin, or by `proxy ` and the proxy URL: a proxy's host is held to the same rule as an origin.
  const literalRefused = new Map<string, boolean>();
  ctx.options.onChange((key) => {
    if (key === ALLOW_LINK_LOCAL_OPTION) literalRefused.clear();
  });
  const refused = (key: string, judge: () => string | undefined) => {
    let out = literalRefused.get(key);
    if (out === undefined) {
      out = judge() !== undefined;
      literalRefused.set(key, out);
    }
    return out;
  };
  const refusedOrigin = (origin: string) => refused(origin, () => literalRefusal(origin, policy()));
  const refusedProxy = (proxy: string) => refused(`proxy ${proxy}`, () => proxyRefusal(proxy, policy()));
  const proxies = createProxyDispatchers(policy);
  ctx.onClose(() => Promise.all([agent.close(), proxies.close()]).then(() => undefined));
  const relayMs = ctx.config.relayTimeoutSec * 1000;
  const idleMs = ctx.config.streamingTimeoutSec * 1000;
  const silence = new SilenceWatch();
  ctx.onClose(() => silence.stop());

  return {
    agent,
    /**
     * Ends every upstream call in flight (shutdown's deadline): each fails as an upstream error, so its hold is
     * released or its stream billed for what was sent, and its request finishes.
     */
    async abortAll(): Promise<void> {
      const err = new Error('the gateway is shutting down');
      await Promise.all([agent.destroy(err), proxies.destroy(err)]);
    },
    /** Sends one request; network failures and timeouts become retryable 502/504 relay errors. */
    async send(req: UpstreamRequest): Promise<UpstreamResponse> {
      let dispatcher: Dispatcher = agent;
      if (req.proxy) {
        if (refusedProxy(req.proxy)) throw PROXY_REFUSED;
        try {
          dispatcher = proxies.get(req.proxy);
        } catch {
          throw new RelayError(
            502,
            "the channel's proxy setting is not a valid http, https or socks5 URL",
            'upstream_error',
            'channel_proxy_invalid',
            null,
            false,
          );
        }
      }
      try {
        // The dispatcher directly, with the URL split by hand: undici's top-level request() parses it as a URL.
        const cut = req.url.indexOf('/', req.url.indexOf('//') + 2);
        const origin = cut < 0 ? req.url : req.url.slice(0, cut);
        if (dispatcher === agent && refusedOrigin(origin)) throw LINK_LOCAL_REFUSED;
        return await DispatchedCall.send(
          dispatcher,
          {
            origin,
            path: cut < 0 ? '/' : req.url.slice(cut),
            method: req.method ?? 'POST',
            headers: req.headers,
            body: req.body as any,
            // The silence limits are the watch's (silence-watch.ts), not a timer per call.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          req.signal,
          { watch: silence, ms: req.stream ? idleMs : relayMs },
        );
      } catch (err) {
        throw networkError(err);
      }
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;

const LINK_LOCAL_REFUSED = new RelayError(
  502,
  `the channel's address is a link-local or cloud metadata address; root can allow it with the option ${ALLOW_LINK_LOCAL_OPTION}`,
  'upstream_error',
  'upstream_address_refused',
  null,
  false,
);

/** The channel's proxy is a link-local or metadata address (or resolves to one, at connect time). */
export const PROXY_REFUSED = new RelayError(
  502,
  `the channel's proxy or address is a link-local or cloud metadata address; root can allow it with the option ${ALLOW_LINK_LOCAL_OPTION}`,
  'upstream_error',
  'upstream_address_refused',
  null,
  false,
);

/** A failed connection or timeout as a relay error (never showing the upstream address). */
export function networkError(err: unknown): RelayError {
  if (err instanceof RelayError) return err;
  const e = err as Error & { code?: string; cause?: { code?: string } };
  if (e?.code === 'ESSRF' || e?.cause?.code === 'ESSRF') return LINK_LOCAL_REFUSED;
  if (
    e instanceof errors.HeadersTimeoutError ||
    e instanceof errors.BodyTimeoutError ||
    e?.name === 'TimeoutError'
  ) {
    return new RelayError(504, 'upstream timed out', 'upstream_error', 'upstream_timeout', null, false);
  }
  if (e?.name === 'AbortError' || e instanceof errors.RequestAbortedError) {
    const reason = (e as any).cause ?? (e as any).reason;
    if (reason?.name === 'TimeoutError')
      return new RelayError(504, 'upstream timed out', 'upstream_error', 'upstream_timeout', null, false);
    return new RelayError(499, 'request aborted', 'upstream_error', 'aborted', null, false);
  }
  return new RelayError(
    502,
    'failed to reach the upstream',
    'upstream_error',
    'upstream_unreachable',
    null,
    false,
  );
}
