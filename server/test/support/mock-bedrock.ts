import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { REFUSED_BETAS } from './cloud-betas.ts';
import { fixtureChunks, fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Amazon Bedrock's runtime (InvokeModel, InvokeModelWithResponseStream) and control plane
 * (ListFoundationModels) for Anthropic models, on 127.0.0.1, in one region. Like AWS it first checks the
 * SigV4 signature of every request, recomputed here from the method, the path (each segment encoded once
 * more), the query, the signed headers and the body's SHA-256 with the account's secret: a request signed
 * with another secret, region or service, or too old, gets AWS's 403. Then it checks the body as Bedrock does
 * (`anthropic_version`, no `model` or `stream`, `anthropic_beta` a list) and answers with recorded Anthropic
 * answers, streams as a binary `application/vnd.amazon.eventstream` written in uneven slices, so messages
 * arrive split across network chunks.
 *
 * Models (base ids, the `us.` profile of Sonnet 4.5 and one application inference profile ARN) pick the answer:
 * - Sonnet 4.5 / 3.5 v2 and the profiles: the recorded text (tools in the request: the parallel tool calls);
 * - `anthropic.claude-3-haiku-20240307-v1:0`: 429 ThrottlingException (a stream: a throttlingException
 *   message before any event);
 * - `anthropic.claude-3-opus-20240229-v1:0`: a stream that fails after two deltas with a
 *   modelStreamErrorException.
 */
export interface BedrockMock {
  url: string;
  requests: Array<{
    method: string;
    path: string;
    modelId: string;
    headers: IncomingMessage['headers'];
    body: any;
  }>;
  close(): Promise<void>;
}

export const MOCK_REGION = 'us-west-2';
export const MOCK_ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
export const MOCK_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

export const THROTTLED_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
export const BREAKING_MODEL = 'anthropic.claude-3-opus-20240229-v1:0';
export const PROFILE_ARN =
  'arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/a1b2c3d4e5f6';
const SERVED = new Set([
  'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'us.anthropic.claude-3-5-sonnet-20241022-v2:0',
  PROFILE_ARN,
  THROTTLED_MODEL,
  BREAKING_MODEL,
]);

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: 'string' as const, value });

function awsError(res: ServerResponse, status: number, type: string, message: string) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'f3c3f7d5-5f3a-4a57-9bd9-0a1d2c3b4e5f',
  });
  res.end(JSON.stringify({ message }));
}

const hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Why AWS would refuse the request's signature, or null when it holds. */
function signatureProblem(req: IncomingMessage, raw: Buffer): { type: string; message: string } | null {
  const auth = String(req.headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, accessKey, date, region, service, signedList, signature] = m;
  if (accessKey !== MOCK_ACCESS_KEY)
    return {
      type: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    };
  if (region !== MOCK_REGION)
    return {
      type: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region. `,
    };
  if (service !== 'bedrock')
    return {
      type: 'InvalidSignatureException',
      message: "Credential should be scoped to correct service: 'bedrock'. ",
    };
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  const when = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!when || amzDate.slice(0, 8) !== date)
    return {
      type: 'InvalidSignatureException',
      message: 'Date in Credential scope does not match YYYYMMDD.',
    };
  const at = Date.UTC(+when[1], +when[2] - 1, +when[3], +when[4], +when[5], +when[6]);
  if (Math.abs(Date.now() - at) > 5 * 60_000)
    return { type: 'InvalidSignatureException', message: 'Signature expired' };
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date'))
    return { type: 'InvalidSignatureException', message: "'Host' and 'X-Amz-Date' must be signed." };

  const payloadHash = hex(raw);
  const claimed = req.headers['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== payloadHash)
    return {
      type: 'InvalidSignatureException',
      message: 'The provided x-amz-content-sha256 header does not match.',
    };
  const [rawPath, rawQuery = ''] = String(req.url).split('?');
  // The path as it came over the wire, each segment URI-encoded once more (every AWS service but S3).
  const canonicalUri = rawPath
    .split('/')
    .map((seg) => rfc3986(seg))
    .join('/');
  const canonicalQuery = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [k, v = ''] = pair.split('=');
      return [rfc3986(decodeURIComponent(k)), rfc3986(decodeURIComponent(v.replace(/\+/g, ' ')))];
    })
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signed
    .map((name) => {
      const v = req.headers[name];
      const value = (Array.isArray(v) ? v.join(',') : String(v ?? '')).trim().replace(/\s+/g, ' ');
      return `${name}:${value}\n`;
    })
    .join('');
  const canonicalRequest = [
    req.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedList,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${MOCK_SECRET}`, date), region), service), 'aws4_request');
  const expected = hmac(key, toSign);
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex')))
    return {
      type: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  return null;
}

/** What Bedrock's validation refuses in an Anthropic body, or null. */
function bodyProblem(body: any): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return 'Malformed input request, please reformat your input and try again.';
  for (const k of ['model', 'stream', 'output_format'])
    if (k in body)
      return `Malformed input request: #: extraneous key [${k}] is not permitted, please reformat your input and try again.`;
  if (body.anthropic_version !== 'bedrock-2023-05-31')
    return 'Malformed input request: #: required key [anthropic_version] not found or invalid, please reformat your input and try again.';
  if (
    body.anthropic_beta !== undefined &&
    !(Array.isArray(body.anthropic_beta) && body.anthropic_beta.every((b: unknown) => typeof b === 'string'))
  )
    return 'Malformed input request: #/anthropic_beta: expected type: JSONArray, please reformat your input and try again.';
  if (body.anthropic_beta?.some((b: string) => REFUSED_BETAS.has(b))) return 'invalid beta flag';
  if (!Number.isInteger(body.max_tokens))
    return 'Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.';
  if (!Array.isArray(body.messages) || body.messages.length === 0 || body.messages[0].role !== 'user')
    return 'messages: the first message must use the "user" role';
  return null;
}

/** One chunk event of InvokeModelWithResponseStream: an Anthropic event, base64 in `bytes`. */
function chunkMessage(event: unknown): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
  const headers: MessageHeaders = {
    ':event-type': str('chunk'),
    ':content-type': str('application/json'),
    ':message-type': str('event'),
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify({ bytes, p: 'abcdefghijklmnopqrstu' })) });
}

function exceptionMessage(type: string, body: Record<string, unknown>): Uint8Array {
  const headers: MessageHeaders = {
    ':exception-type': str(type),
    ':content-type': str('application/json'),
    ':message-type': str('exception'),
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(body)) });
}

/** The recorded events, with Bedrock's invocation metrics on message_stop as it adds them. */
function recordedEvents(rel: string): any[] {
  const events = fixtureChunks(rel).map((l) => JSON.parse(l));
  let input = 0;
  let output = 0;
  for (const e of events) {
    if (e.type === 'message_start') input = e.message.usage.input_tokens;
    if (e.type === 'message_delta') output = e.usage.output_tokens;
    if (e.type === 'message_stop')
      e['amazon-bedrock-invocationMetrics'] = {
        inputTokenCount: input,
        outputTokenCount: output,
        invocationLatency: 812,
        firstByteLatency: 301,
      };
  }
  return events;
}

/** The messages in slices of 45 bytes, a tick apart, so that messages and even preludes are cut. */
async function sendEventStream(res: ServerResponse, messages: Uint8Array[]) {
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-bedrock-content-type': 'application/json',
    'x-amzn-requestid': '0b0c3f2e-9d64-4c37-8f47-5f2d8d7c1a11',
  });
  const all = Buffer.concat(messages);
  for (let i = 0; i < all.length; i += 45) {
    if (res.destroyed) return;
    res.write(all.subarray(i, i + 45));
    await new Promise((r) => setTimeout(r, 1));
  }
  res.end();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

export async function startBedrockMock(): Promise<BedrockMock> {
  const requests: BedrockMock['requests'] = [];
  const mock = await serveMock(async (req, res) => {
    const raw = await readBody(req);
    const sig = signatureProblem(req, raw);
    if (sig) return awsError(res, 403, sig.type, sig.message);
    const [path, query = ''] = String(req.url).split('?');

    if (req.method === 'GET' && path === '/foundation-models') {
      if (new URLSearchParams(query).get('byProvider') !== 'anthropic')
        return awsError(res, 400, 'ValidationException', 'byProvider is expected in this test');
      requests.push({ method: 'GET', path, modelId: '', headers: req.headers, body: null });
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({
          modelSummaries: [
            summary('anthropic.claude-3-5-sonnet-20241022-v2:0', ['ON_DEMAND', 'INFERENCE_PROFILE']),
            summary('anthropic.claude-sonnet-4-5-20250929-v1:0', ['INFERENCE_PROFILE']),
            summary('anthropic.claude-3-haiku-20240307-v1:0', ['ON_DEMAND']),
            summary('anthropic.claude-3-haiku-20240307-v1:0:200k', ['PROVISIONED']),
          ],
        }),
      );
    }

    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(path);
    if (req.method !== 'POST' || !m)
      return awsError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const modelId = decodeURIComponent(m[1]);
    const stream = m[2] === 'invoke-with-response-stream';
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = null;
    }
    requests.push({ method: 'POST', path, modelId, headers: req.headers, body });
    if (!SERVED.has(modelId))
      return awsError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
    const problem = bodyProblem(body);
    if (problem) return awsError(res, 400, 'ValidationException', problem);

    if (modelId === THROTTLED_MODEL) {
      if (!stream)
        return awsError(
          res,
          429,
          'ThrottlingException',
          'Too many requests, please wait before trying again.',
        );
      return sendEventStream(res, [
        exceptionMessage('throttlingException', {
          message: 'Too many tokens, please wait before trying again.',
        }),
      ]);
    }
    if (modelId === BREAKING_MODEL) {
      const events = recordedEvents('anthropic/messages/text.chunks.txt');
      const head = events.slice(0, events.findIndex((e) => e.type === 'content_block_delta') + 2);
      return sendEventStream(res, [
        ...head.map(chunkMessage),
        exceptionMessage('modelStreamErrorException', {
          message: 'Model stream error: the model stopped responding',
          originalStatusCode: 500,
          originalMessage: 'upstream model failure',
        }),
      ]);
    }
    if (stream) {
      const rel = body.tools?.length
        ? 'anthropic/messages/tool-use-parallel.chunks.txt'
        : 'anthropic/messages/text.chunks.txt';
      return sendEventStream(res, recordedEvents(rel).map(chunkMessage));
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-amzn-bedrock-input-token-count': '12',
      'x-amzn-bedrock-output-token-count': '29',
    });
    res.end(JSON.stringify(fixtureJson('anthropic/messages/text.json')));
  });
  return { url: mock.url, requests, close: mock.close };
}

const summary = (modelId: string, inferenceTypesSupported: string[]) => ({
  modelArn: `arn:aws:bedrock:${MOCK_REGION}::foundation-model/${modelId}`,
  modelId,
  modelName: modelId,
  providerName: 'Anthropic',
  inputModalities: ['TEXT', 'IMAGE'],
  outputModalities: ['TEXT'],
  responseStreamingSupported: true,
  inferenceTypesSupported,
  modelLifecycle: { status: 'ACTIVE' },
});
