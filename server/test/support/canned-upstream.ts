import { afterAll, beforeAll } from 'vitest';
import type { HubEvent } from '../../src/relay/formats/hub.ts';
import { serveMock } from './mock-server.ts';

export interface CannedReply {
  status: number;
  type: string;
  body: string;
}

/**
 * A loopback upstream for an official SDK to call: it answers every request with `reply` (set by the test just
 * before the call) and records each request's path and JSON body in `seen`. Started before the suite's tests
 * and closed after them.
 */
export function cannedUpstream() {
  const upstream = {
    url: '',
    reply: { status: 200, type: 'application/json', body: '{}' } as CannedReply,
    seen: [] as Array<{ url: string; body: any }>,
  };
  let close = async () => {};
  beforeAll(async () => {
    const mock = await serveMock(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      upstream.seen.push({ url: req.url ?? '', body: raw ? JSON.parse(raw) : null });
      res.writeHead(upstream.reply.status, { 'content-type': upstream.reply.type });
      res.end(upstream.reply.body);
    });
    upstream.url = mock.url;
    close = mock.close;
  });
  afterAll(() => close());
  return upstream;
}

/**
 * An official SDK client (made by `make` once the upstream listens) reading from a canned upstream, and
 * `serveStream`, which answers the next call with the SSE a format's encoder writes of hub events.
 */
export function sdkOnCannedUpstream<C>(make: (url: string) => C, encode: (events: HubEvent[]) => string) {
  const upstream = cannedUpstream();
  const sdk = { client: undefined as unknown as C };
  beforeAll(() => {
    sdk.client = make(upstream.url);
  });
  const serveStream = (events: HubEvent[]) => {
    const body = encode(events);
    upstream.reply = { status: 200, type: 'text/event-stream', body };
    return body;
  };
  return { sdk, upstream, serveStream };
}
