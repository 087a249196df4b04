import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { Role } from '@modelgate/shared';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { seedChannel, seedToken, seedUser } from './support/relay-seed.ts';
import { startServer, type TestServer } from './support/server.ts';

/**
 * A failed access-token exchange (Vertex AI service accounts, Wenxin client credentials) tells the API caller
 * only that it failed, in the caller's protocol with the request id: never the token endpoint's answer, its
 * address or an option name. An administrator reads the detail in the console's channel test and in the status
 * reason of a channel disabled for it.
 */
const ENDPOINT_TEXT = 'internal-detail: account proj-secret behind 10.9.8.7 is disabled';

describe('token exchange failures', () => {
  let server: TestServer;
  let admin: ConsoleClient;
  let tokenEndpoint: Server;
  let endpointUrl = '';
  let deadPort = 0;
  let apiKey = '';
  const channels: Record<string, number> = {};

  const serviceAccount = (tokenUri: string) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return JSON.stringify({
      type: 'service_account',
      project_id: 'proj-x',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: 'relay@proj-x.iam.gserviceaccount.com',
      token_uri: tokenUri,
    });
  };

  beforeAll(async () => {
    tokenEndpoint = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: ENDPOINT_TEXT }));
    });
    await new Promise<void>((r) => tokenEndpoint.listen(0, '127.0.0.1', r));
    endpointUrl = `http://127.0.0.1:${(tokenEndpoint.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));

    server = await startServer();
    await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await server.ctx.options.set('SelfUseModeEnabled', 'true');
    admin = await loginAs(server, { username: 'admin', role: Role.Admin });
    const userId = (await seedUser(server.ctx, { quota: 100_000_000 })).id;
    apiKey = (await seedToken(server.ctx, { userId, remain: 10_000_000 })).apiKey;
    const add = async (model: string, o: Omit<Parameters<typeof seedChannel>[1], 'models'>) => {
      channels[model] = (await seedChannel(server.ctx, { ...o, models: [model] })).id;
    };
    await add('vertex-refused', {
      type: 41,
      other: 'us-central1',
      baseUrl: '',
      key: serviceAccount(`${endpointUrl}/token`),
    });
    await add('vertex-closed', {
      type: 41,
      other: 'us-central1',
      baseUrl: '',
      key: serviceAccount(`http://127.0.0.1:${deadPort}/token`),
      autoBan: false,
    });
    await add('vertex-metadata', {
      type: 41,
      other: 'us-central1',
      baseUrl: '',
      key: serviceAccount('http://169.254.169.254/computeMetadata/v1/token'),
      autoBan: false,
    });
    await add('wenxin-refused', { type: 15, baseUrl: endpointUrl, key: 'ak-x|sk-x', autoBan: false });
    await add('wenxin-closed', {
      type: 15,
      baseUrl: `http://127.0.0.1:${deadPort}`,
      key: 'ak-y|sk-y',
      autoBan: false,
    });
  });
  afterAll(async () => {
    await server?.close();
    tokenEndpoint?.close();
  });

  /** Nothing of the endpoint: its answer, its address, its port, the option that would let it through. */
  function expectScrubbed(message: string) {
    // A failed exchange says so; refused credentials are the gateway's own "refused the credentials" 503.
    expect(message).toMatch(/access token exchange failed|refused the credentials of the channel/);
    expect(message).toMatch(/request id/);
    for (const leak of ['internal-detail', 'invalid_grant', 'answered', '127.0.0.1', String(deadPort)])
      expect(message).not.toContain(leak);
    expect(message).not.toContain(endpointUrl);
    expect(message).not.toContain('169.254');
    expect(message).not.toContain('fetch_setting');
  }

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('the call was expected to fail');
      },
      (e: { status?: number; message?: string }) => e,
    );

  it('answers OpenAI and Anthropic callers with a short error, never the endpoint’s answer or address', async () => {
    const openai = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey, baseURL: server.url, maxRetries: 0 });
    const expected: Record<string, number> = {
      'vertex-closed': 502,
      'vertex-metadata': 502,
      // Refused credentials are the channel's, not the caller's: the gateway's own 503 (upstream_auth_failed).
      'wenxin-refused': 503,
      'wenxin-closed': 502,
      'vertex-refused': 503,
    };
    for (const [model, status] of Object.entries(expected)) {
      const viaOpenAI = await failure(
        openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(viaOpenAI.status, model).toBe(status);
      expectScrubbed(String(viaOpenAI.message));
      if (model === 'vertex-refused') continue; // disabled by the first refusal
      const viaAnthropic = await failure(
        anthropic.messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      );
      expect(viaAnthropic.status, model).toBe(status);
      expect((viaAnthropic as { error?: { type?: string } }).error?.type).toBe('error');
      expectScrubbed(String(viaAnthropic.message));
    }
  });

  it('shows the detail to administrators: the channel test and the reason a channel was disabled', async () => {
    const closed = await admin.get(`/api/channel/test/${channels['vertex-closed']}`);
    expect(closed.success).toBe(false);
    expect(closed.message).toMatch(/connection refused/);
    const metadata = await admin.get(`/api/channel/test/${channels['vertex-metadata']}`);
    expect(metadata.message).toMatch(/link-local or cloud metadata/);
    const wenxin = await admin.get(`/api/channel/test/${channels['wenxin-refused']}`);
    expect(wenxin.message).toContain(ENDPOINT_TEXT);

    await expect
      .poll(async () => (await admin.get(`/api/channel/${channels['vertex-refused']}`)).data.status)
      .toBe(3);
    const view = await admin.get(`/api/channel/${channels['vertex-refused']}`);
    expect(JSON.stringify(view.data)).toContain(ENDPOINT_TEXT);
  });
});
