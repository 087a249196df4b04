import { createServer, type Server } from 'node:http';
import { Role } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleClient, loginAs } from './support/console-client.ts';
import { startServer, type TestServer } from './support/server.ts';

describe('POST /api/option/oidc_discovery', () => {
  let server: TestServer;
  let idp: Server;
  let idpUrl = '';
  let admin: ConsoleClient;
  let user: ConsoleClient;

  beforeAll(async () => {
    server = await startServer();
    admin = await loginAs(server, { username: 'root1', role: Role.Root });
    user = await loginAs(server, { username: 'plain' });
    // A stand-in identity provider on loopback serving a standard discovery document.
    idp = createServer((req, res) => {
      if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            issuer: idpUrl,
            authorization_endpoint: `${idpUrl}/authorize`,
            token_endpoint: `${idpUrl}/oauth/token`,
            userinfo_endpoint: `${idpUrl}/userinfo`,
            jwks_uri: `${idpUrl}/jwks`,
          }),
        );
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const addr = idp.address();
    idpUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    idp?.close();
    await server?.close();
  });

  it('refuses link-local and cloud metadata addresses (a company identity provider may be private)', async () => {
    for (const well_known of [
      'http://169.254.169.254/.well-known/openid-configuration',
      'http://[fe80::1]/.well-known/openid-configuration',
      'http://[::ffff:169.254.169.254]/.well-known/openid-configuration',
    ]) {
      const res = await admin.post('/api/option/oidc_discovery', { well_known });
      expect(res.status, well_known).toBe(400);
      expect(res.message, well_known).toMatch(/link-local or cloud metadata/);
    }
  });

  it('reads the three endpoints from the well-known document', async () => {
    expect(
      (await admin.put('/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'true' })).success,
    ).toBe(true);
    const res = await admin.post('/api/option/oidc_discovery', {
      well_known: `${idpUrl}/.well-known/openid-configuration`,
    });
    expect(res.success).toBe(true);
    expect(res.data).toEqual({
      authorization_endpoint: `${idpUrl}/authorize`,
      token_endpoint: `${idpUrl}/oauth/token`,
      userinfo_endpoint: `${idpUrl}/userinfo`,
    });
  });

  it('explains a bad address, a missing document and a non-admin caller', async () => {
    const scheme = await admin.post('/api/option/oidc_discovery', { well_known: 'ftp://idp.example.com/x' });
    expect(scheme.status).toBe(400);
    expect(scheme.message).toMatch(/http:\/\/ or https:\/\//);
    const missing = await admin.post('/api/option/oidc_discovery', { well_known: `${idpUrl}/nothing` });
    expect(missing.status).toBe(400);
    expect(missing.message).toMatch(/HTTP 404/);
    const forbidden = await user.post('/api/option/oidc_discovery', {
      well_known: `${idpUrl}/.well-known/openid-configuration`,
    });
    expect(forbidden.status).toBe(403);
  });
});
