import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixtureText } from './fixtures.ts';

export interface Seen {
  method: string;
  url: string;
  auth: string;
  body: any;
}

/**
 * An OpenAI-compatible upstream for the console's channel features (tests, balances, model lists): the key
 * decides how it behaves, and every request it receives is kept in `seen`.
 */
export function startChannelUpstream(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const auth = String(req.headers.authorization ?? '');
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      auth,
      body: raw ? JSON.parse(raw) : undefined,
    });
    const key = auth.replace(/^Bearer /, '');
    const json = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    const invalidKey = JSON.stringify({
      error: {
        // Like OpenAI, the 401 names the key it was given.
        message: `Incorrect API key provided: ${key}`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    if (req.url === '/v1/models') {
      if (key !== 'good-key') return json(401, invalidKey);
      return json(
        200,
        JSON.stringify({
          object: 'list',
          data: ['gpt-4.1-nano', 'gpt-4o', 'text-embedding-3-small'].map((id) => ({
            id,
            object: 'model',
            created: 1700000000,
            owned_by: 'openai',
          })),
        }),
      );
    }
    if (req.url === '/v1/chat/completions') {
      if (key === 'bad-key') return json(401, invalidKey);
      if (key === 'quota-key')
        return json(429, fixtureText('openai/responses/error-insufficient-quota.json'));
      if (key === 'flaky-key')
        return json(
          500,
          JSON.stringify({
            error: { message: 'The server had an error', type: 'server_error', param: null, code: null },
          }),
        );
      if (key === 'slow-key') await new Promise((r) => setTimeout(r, 400));
      return json(200, fixtureText('openai/chat/text.json'));
    }
    if (req.url === '/dashboard/billing/credit_grants' && key === 'grant-key') {
      return json(
        200,
        JSON.stringify({
          object: 'credit_summary',
          total_granted: 20,
          total_used: 7.5,
          total_available: 12.5,
        }),
      );
    }
    if (req.url === '/v1/dashboard/billing/subscription')
      return json(200, JSON.stringify({ object: 'billing_subscription', hard_limit_usd: 120 }));
    if (req.url?.startsWith('/v1/dashboard/billing/usage'))
      return json(200, JSON.stringify({ object: 'list', total_usage: 2550 }));
    if (req.url === '/user/balance') {
      return json(
        200,
        JSON.stringify({
          is_available: true,
          balance_infos: [
            {
              currency: 'CNY',
              total_balance: '110.00',
              granted_balance: '10.00',
              topped_up_balance: '100.00',
            },
          ],
        }),
      );
    }
    json(404, JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server }),
    ),
  );
}

export type ChannelUpstream = Awaited<ReturnType<typeof startChannelUpstream>>;
