import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveMock } from './mock-server.ts';

/**
 * Tencent Cloud API 3.0 for Hunyuan on 127.0.0.1: every call's TC3-HMAC-SHA256 signature checked the way
 * Tencent does (canonical request, string to sign, key derived from the date, the service and tc3_request),
 * AuthFailure.SignatureFailure when it differs. Errors come as 200 answers carrying Response.Error, as Tencent
 * sends them (`hunyuan-arrears` is in arrears). ChatCompletions plain, with tools, or streamed; GetEmbedding.
 */
export interface TencentCall {
  action: string;
  headers: IncomingMessage['headers'];
  body: any;
  verified: boolean;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

const hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const mac = (key: Buffer | string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest();

/** Tencent's check of an Authorization header: the error code it answers, or null when the signature holds. */
function verifyTc3(req: IncomingMessage, raw: string, secrets: Record<string, string>): string | null {
  const m =
    /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ''),
    );
  if (!m) return 'AuthFailure.InvalidAuthorization';
  const [, secretId, date, service, signedHeaders, signature] = m;
  const secretKey = secrets[secretId];
  if (!secretKey) return 'AuthFailure.SecretIdNotFound';
  const timestamp = Number(req.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300)
    return 'AuthFailure.SignatureExpire';
  if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date || service !== 'hunyuan')
    return 'AuthFailure.SignatureFailure';
  const names = signedHeaders.split(';');
  if (!names.includes('content-type') || !names.includes('host')) return 'AuthFailure.SignatureFailure';
  const canonicalHeaders = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? '')
          .trim()
          .toLowerCase()}\n`,
    )
    .join('');
  const canonicalRequest = `${req.method}\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${hex(raw)}`;
  const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${hex(canonicalRequest)}`;
  const kDate = mac(`TC3${secretKey}`, date);
  const kService = mac(kDate, service);
  const kSigning = mac(kService, 'tc3_request');
  const expected = createHmac('sha256', kSigning).update(stringToSign, 'utf8').digest('hex');
  return expected === signature ? null : 'AuthFailure.SignatureFailure';
}

function tencent(secrets: Record<string, string>) {
  const seen: TencentCall[] = [];
  const answer = (res: ServerResponse, response: Record<string, unknown>) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ Response: { ...response, RequestId: 'req-tc-1' } }));
  };
  const fail = (res: ServerResponse, code: string, message: string) =>
    answer(res, { Error: { Code: code, Message: message } });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const action = String(req.headers['x-tc-action'] ?? '');
    const refused = verifyTc3(req, raw, secrets);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    seen.push({ action, headers: req.headers, body, verified: refused === null });
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://mock').pathname !== '/')
      return fail(res, 'UnsupportedOperation', 'only POST / is served');
    if (refused)
      return fail(
        res,
        refused,
        'The provided credentials could not be validated. Please check your signature is correct.',
      );
    if (req.headers['x-tc-version'] !== '2023-09-01')
      return fail(res, 'InvalidParameter', 'unsupported X-TC-Version');
    if (action === 'GetEmbedding') {
      const list: string[] = body?.InputList ?? [];
      if (!list.length) return fail(res, 'MissingParameter', 'InputList is required');
      return answer(res, {
        Data: list.map((t) => ({ Embedding: [t.length, 0.25], Index: 0, Object: 'embedding' })),
        Usage: { PromptTokens: 6, TotalTokens: 6 },
      });
    }
    if (action !== 'ChatCompletions') return fail(res, 'InvalidAction', `unknown action ${action}`);
    if (!Array.isArray(body?.Messages) || typeof body?.Model !== 'string')
      return fail(res, 'MissingParameter', 'Model and Messages are required');
    if (body.Model === 'hunyuan-arrears')
      return fail(res, 'ResourceUnavailable.InArrears', 'Your account is in arrears; please top up.');
    const tools = Array.isArray(body.Tools) && body.Tools.length > 0;
    if (tools && typeof body.Tools[0].Function?.Parameters !== 'string')
      return fail(res, 'InvalidParameterValue', 'Tools.Function.Parameters must be a JSON string');
    if (!body.Stream) {
      const message = tools
        ? {
            Role: 'assistant',
            Content: '',
            ToolCalls: [
              {
                Id: 'call_hy_1',
                Type: 'function',
                Function: { Name: 'get_weather', Arguments: '{"city":"Shenzhen"}' },
                Index: 0,
              },
            ],
          }
        : { Role: 'assistant', Content: 'Hello from Hunyuan' };
      return answer(res, {
        Id: 'hy-plain-1',
        Created: 1_735_689_600,
        Note: '以上内容为AI生成，不代表开发者立场',
        Choices: [{ Index: 0, Message: message, FinishReason: tools ? 'tool_calls' : 'stop' }],
        Usage: { PromptTokens: 10, CompletionTokens: 6, TotalTokens: 16 },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const parts = ['Hello', ' from', ' Hun', 'yuan'];
    parts.forEach((text, i) => {
      const last = i === parts.length - 1;
      const chunk = {
        Note: '以上内容为AI生成，不代表开发者立场',
        Choices: [{ Delta: { Role: 'assistant', Content: text }, FinishReason: last ? 'stop' : '' }],
        Created: 1_735_689_600,
        Id: 'hy-stream-1',
        Usage: { PromptTokens: 10, CompletionTokens: i + 1, TotalTokens: 11 + i },
      };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    res.end();
  };
  return { seen, handle };
}

/** Tencent Cloud on a loopback port, knowing the SecretId -> SecretKey pairs given; `seen` holds every call. */
export async function startTencentMock(secrets: Record<string, string>) {
  const tc = tencent(secrets);
  const server = await serveMock(tc.handle);
  return { ...server, seen: tc.seen };
}
