import { generateKeyPairSync, type KeyObject, randomBytes, verify } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REFUSED_BETAS } from './cloud-betas.ts';
import { fixtureChunks, fixtureText } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Google's OAuth token endpoint and of Vertex AI's prediction API, on 127.0.0.1.
 *
 * Token endpoint (`/token`, and `/flaky-token` that fails while `flaky` is above zero): takes the
 * service-account JWT-bearer grant as Google does. It checks the grant type, verifies the JWT's RS256
 * signature with the public key of the account named by `iss`, and checks `scope`, `aud` (this very endpoint)
 * and a lifetime of at most an hour around now; then issues an access token valid `tokenLife` seconds.
 * Refusals are Google's `{error, error_description}` with 400.
 *
 * API (`/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{action}`): every call
 * needs a live bearer token issued here, for the project in the path (else Google's 401 / 403). Then:
 * - `google` models at `:generateContent` / `:streamGenerateContent?alt=sse`: the recorded Gemini answers
 *   (function calls when the request has tools); `gemini-error` gets the recorded 429 RESOURCE_EXHAUSTED;
 * - `anthropic` models at `:rawPredict` / `:streamRawPredict`: the body must carry
 *   `anthropic_version: vertex-2023-10-16`, no `model`, and `stream` only on the stream action; the recorded
 *   Anthropic answers; an unknown model is Google's 404 NOT_FOUND;
 * - embedding models at `:predict`: `{instances:[{content}]}` answered with made-up vectors and one token per
 *   word; `gemini-embedding-*` refuses more than one instance, as Vertex does.
 */
export interface VertexMock {
  url: string;
  tokenUri: string;
  flakyTokenUri: string;
  /** Exchanges that issued a token, per client_email. */
  exchanges: Map<string, number>;
  /** Calls to the token endpoints, refused or not. */
  tokenCalls: number;
  /** How many more calls `/flaky-token` fails with 503. */
  flaky: number;
  /** Seconds an issued token lives. */
  tokenLife: number;
  requests: Array<{
    path: string;
    project: string;
    region: string;
    publisher: string;
    model: string;
    action: string;
    query: string;
    headers: IncomingMessage['headers'];
    body: any;
  }>;
  /** A service account the token endpoint knows; `forged` signs with a key other than the registered one. */
  account(o: { email: string; project: string; tokenUri?: string; forged?: boolean }): {
    key: string;
    privateKeyPem: string;
  };
  close(): Promise<void>;
}

export const CLAUDE_IDS = new Set(['claude-sonnet-4-5@20250929', 'claude-3-5-sonnet-v2@20241022']);
const GEMINI = 'google/generate-content/';
const CLAUDE = 'anthropic/messages/';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

const googleError = (res: ServerResponse, code: number, status: string, message: string) => {
  res.writeHead(code, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(JSON.stringify({ error: { code, message, status } }, null, 2));
};

const oauthError = (res: ServerResponse, error: string, description: string, status = 400) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ error, error_description: description }));
};

const json = (res: ServerResponse, body: unknown) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export async function startVertexMock(): Promise<VertexMock> {
  const publicKeys = new Map<string, { key: KeyObject; project: string }>();
  const tokens = new Map<string, { email: string; project: string; expiresAt: number }>();

  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, path: string) {
    mock.tokenCalls++;
    const raw = await readBody(req);
    if (path === '/flaky-token' && mock.flaky > 0) {
      mock.flaky--;
      return oauthError(res, 'internal_failure', 'Backend Error', 503);
    }
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
      return oauthError(res, 'invalid_request', 'Invalid Content-Type');
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return oauthError(res, 'unsupported_grant_type', 'Invalid grant_type');
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return oauthError(res, 'invalid_grant', 'Invalid JWT: not a JWT');
    let header: any;
    let claims: any;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    } catch {
      return oauthError(res, 'invalid_grant', 'Invalid JWT: malformed');
    }
    if (header.alg !== 'RS256') return oauthError(res, 'invalid_grant', 'Invalid JWT: alg must be RS256');
    const account = publicKeys.get(claims.iss);
    if (!account) return oauthError(res, 'invalid_grant', 'Invalid grant: account not found');
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      account.key,
      Buffer.from(parts[2], 'base64url'),
    );
    if (!signed) return oauthError(res, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== `${mock.url}${path}`) return oauthError(res, 'invalid_grant', 'Invalid JWT: audience');
    if (
      !String(claims.scope ?? '')
        .split(' ')
        .includes(SCOPE)
    )
      return oauthError(res, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const now = Math.floor(Date.now() / 1000);
    if (
      typeof claims.iat !== 'number' ||
      typeof claims.exp !== 'number' ||
      claims.exp - claims.iat > 3600 ||
      claims.iat > now + 60 ||
      claims.exp < now
    )
      return oauthError(
        res,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    const token = `ya29.mock-${randomBytes(12).toString('base64url')}`;
    tokens.set(token, {
      email: claims.iss,
      project: account.project,
      expiresAt: Date.now() + mock.tokenLife * 1000,
    });
    mock.exchanges.set(claims.iss, (mock.exchanges.get(claims.iss) ?? 0) + 1);
    json(res, { access_token: token, expires_in: mock.tokenLife, token_type: 'Bearer' });
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: string) {
    const raw = await readBody(req);
    const auth = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    const token = auth ? tokens.get(auth[1]) : undefined;
    if (!token || token.expiresAt <= Date.now())
      return googleError(
        res,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    const m =
      /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)$/.exec(
        path,
      );
    if (!m) return googleError(res, 404, 'NOT_FOUND', `The requested URL ${path} was not found.`);
    const [, project, region, publisher, encodedModel, action] = m;
    const model = decodeURIComponent(encodedModel);
    if (project !== token.project)
      return googleError(
        res,
        403,
        'PERMISSION_DENIED',
        `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${region}/publishers/${publisher}/models/${model}' (or it may not exist).`,
      );
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      return googleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    mock.requests.push({
      path,
      project,
      region,
      publisher,
      model,
      action,
      query,
      headers: req.headers,
      body,
    });
    if (publisher === 'anthropic')
      return claude(req, res, model, action, body, `projects/${project}/locations/${region}`);
    if (action === 'predict') return predict(res, model, body);
    return gemini(res, model, action, query, body);
  }

  function gemini(res: ServerResponse, model: string, action: string, query: string, body: any) {
    if (action !== 'generateContent' && action !== 'streamGenerateContent')
      return googleError(res, 400, 'INVALID_ARGUMENT', `${action} is not served for ${model}`);
    const contents = body?.contents;
    if (
      !Array.isArray(contents) ||
      !contents.length ||
      contents.some((c: any) => c?.role !== 'user' && c?.role !== 'model')
    )
      return googleError(res, 400, 'INVALID_ARGUMENT', 'Please use a valid role: user, model.');
    if (model === 'gemini-error') {
      res.writeHead(429, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(fixtureText(`${GEMINI}error-429-resource-exhausted.json`));
      return;
    }
    const name = body.tools ? 'function-call' : 'text';
    if (action === 'generateContent') return json(res, fixtureText(`${GEMINI}${name}.json`));
    // Without alt=sse Google streams one JSON array, which the gateway does not read.
    if (new URLSearchParams(query).get('alt') !== 'sse')
      return googleError(res, 400, 'INVALID_ARGUMENT', 'the mock serves streams as SSE only');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const line of fixtureChunks(`${GEMINI}${name}.chunks.txt`)) res.write(`data: ${line}\r\n\r\n`);
    res.end();
  }

  function claude(
    req: IncomingMessage,
    res: ServerResponse,
    model: string,
    action: string,
    body: any,
    parent: string,
  ) {
    if (!CLAUDE_IDS.has(model))
      return googleError(
        res,
        404,
        'NOT_FOUND',
        `Publisher Model \`${parent}/publishers/anthropic/models/${model}\` not found.`,
      );
    const invalid = (message: string) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
    };
    if (body.anthropic_version !== 'vertex-2023-10-16')
      return invalid('anthropic_version: vertex-2023-10-16 is required');
    for (const k of ['model', 'output_format'])
      if (k in body) return invalid(`${k}: Extra inputs are not permitted`);
    const betas = String(req.headers['anthropic-beta'] ?? '').split(',');
    if (betas.some((b) => REFUSED_BETAS.has(b.trim()))) return invalid('invalid beta flag');
    if (!Array.isArray(body.messages) || typeof body.max_tokens !== 'number')
      return invalid('messages and max_tokens are required');
    const stream = action === 'streamRawPredict';
    if (!stream && action !== 'rawPredict')
      return googleError(res, 400, 'INVALID_ARGUMENT', `${action} is not served for ${model}`);
    if ((body.stream === true) !== stream) return invalid('stream must match the action');
    if (!stream) return json(res, fixtureText(`${CLAUDE}${body.tools ? 'tool-use-no-args' : 'text'}.json`));
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    for (const line of fixtureChunks(`${CLAUDE}${body.tools ? 'tool-use-parallel' : 'text'}.chunks.txt`))
      res.write(`event: ${JSON.parse(line).type}\ndata: ${line}\n\n`);
    res.end();
  }

  function predict(res: ServerResponse, model: string, body: any) {
    if (!/^(text-embedding-|text-multilingual-embedding-|gemini-embedding-)/.test(model))
      return googleError(res, 400, 'INVALID_ARGUMENT', `${model} does not serve predict`);
    const instances = body?.instances;
    if (
      !Array.isArray(instances) ||
      !instances.length ||
      instances.some((i: any) => typeof i?.content !== 'string')
    )
      return googleError(res, 400, 'INVALID_ARGUMENT', 'instances[].content is required');
    if (model.startsWith('gemini-embedding-') && instances.length > 1)
      return googleError(
        res,
        400,
        'INVALID_ARGUMENT',
        `Unable to submit request because the model ${model} only supports 1 instance per request.`,
      );
    json(res, {
      predictions: instances.map((i: { content: string }) => ({
        embeddings: {
          statistics: { truncated: false, token_count: i.content.split(/\s+/).filter(Boolean).length },
          values: embeddingOf(i.content),
        },
      })),
      metadata: { billableCharacterCount: instances.reduce((n: number, i: any) => n + i.content.length, 0) },
    });
  }

  const server = await serveMock(async (req, res) => {
    const [path, query = ''] = (req.url ?? '/').split('?');
    if (req.method !== 'POST') return googleError(res, 405, 'INVALID_ARGUMENT', 'POST only');
    if (path === '/token' || path === '/flaky-token') return tokenEndpoint(req, res, path);
    return api(req, res, path, query);
  });

  const mock: VertexMock = {
    url: server.url,
    tokenUri: `${server.url}/token`,
    flakyTokenUri: `${server.url}/flaky-token`,
    exchanges: new Map(),
    tokenCalls: 0,
    flaky: 0,
    tokenLife: 3599,
    requests: [],
    account(o) {
      const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
      publicKeys.set(o.email, { key: pair.publicKey, project: o.project });
      const signer = o.forged
        ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
        : pair.privateKey;
      const privateKeyPem = signer.export({ type: 'pkcs8', format: 'pem' }).toString();
      const key = JSON.stringify(
        {
          type: 'service_account',
          project_id: o.project,
          private_key_id: randomBytes(20).toString('hex'),
          private_key: privateKeyPem,
          client_email: o.email,
          client_id: '109876543210987654321',
          auth_uri: 'https://accounts.google.com/o/oauth2/auth',
          token_uri: o.tokenUri ?? `${server.url}/token`,
          auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
          universe_domain: 'googleapis.com',
        },
        null,
        2,
      );
      return { key, privateKeyPem };
    },
    close: server.close,
  };
  return mock;
}

/** A made-up embedding of a text (three numbers that depend on it), for checking order and shape. */
export const embeddingOf = (text: string) => [text.length, text.split(/\s+/).filter(Boolean).length, 0.5];
