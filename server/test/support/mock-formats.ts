import type { IncomingMessage, ServerResponse } from 'node:http';
import { fixtureChunks, fixtureJson } from './fixtures.ts';
import { serveMock } from './mock-server.ts';

/**
 * A mock of Anthropic's Messages API, Google's Gemini API and OpenAI's Responses API on 127.0.0.1, replaying
 * the recorded responses in server/test/fixtures/upstream. Each checks what the real server checks before
 * answering, so a test passes only when the real provider would take the call:
 * - Anthropic: `x-api-key` = sk-ant-mock, `anthropic-version` present, `max_tokens` set, roles user/assistant
 *   starting with user, thinking blocks with a signature, tool results that follow a tool_use of that id,
 *   no empty text blocks.
 * - Gemini: `x-goog-api-key` = gm-mock, `alt=sse` on streams, no unknown top-level fields (such as `model`),
 *   roles user/model, no JSON Schema keywords Gemini refuses in function declarations.
 * - Responses: `Authorization: Bearer sk-resp-mock`, `input` present.
 * The answer is picked by what the request asks: web search, thinking, tools, cache marks, or plain text. Models named
 * `*-error` get the recorded error of their API; Anthropic models named `*-slow` stream one event every 40 ms.
 */
export interface FormatsMock {
  url: string;
  requests: Array<{
    path: string;
    query: string;
    headers: IncomingMessage['headers'];
    body: any;
    raw: string;
  }>;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A stream at once, or one frame every `delayMs` (a slow model) until the client goes away. */
async function sendStream(res: ServerResponse, frames: string[], delayMs = 0) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (!delayMs) return void res.end(frames.join(''));
  for (const f of frames) {
    if (res.destroyed) return;
    res.write(f);
    await new Promise((r) => setTimeout(r, delayMs));
  }
  res.end();
}

const anthropicError = (res: ServerResponse, status: number, type: string, message: string) =>
  send(res, status, { type: 'error', error: { type, message } });

/** Anthropic's own checks on a Messages body; a message when it would refuse it. */
function anthropicProblem(body: any): string | null {
  if (!Number.isInteger(body?.max_tokens)) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return 'messages: at least one message is required';
  if (body.messages[0].role !== 'user') return 'messages: first message must use the "user" role';
  const toolUses = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (m.role !== 'user' && m.role !== 'assistant')
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks)) return `messages.${i}.content: Input should be a valid list`;
    for (const [j, b] of blocks.entries()) {
      if (b.type === 'text' && !String(b.text ?? '').trim())
        return `messages.${i}.content.${j}.text: text content blocks must be non-empty`;
      if (b.type === 'thinking' && !b.signature)
        return `messages.${i}.content.${j}.thinking.signature: Field required`;
      if (b.type === 'tool_use') toolUses.add(b.id);
      if (b.type === 'tool_result' && !toolUses.has(b.tool_use_id))
        return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${b.tool_use_id}`;
      if (
        b.type === 'image' &&
        b.source?.type === 'base64' &&
        !/^image\/(jpeg|png|gif|webp)$/.test(b.source.media_type)
      )
        return `messages.${i}.content.${j}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
    }
  }
  if (body.thinking?.type === 'enabled' && !(body.thinking.budget_tokens < body.max_tokens))
    return '`max_tokens` must be greater than `thinking.budget_tokens`';
  return null;
}

// Google's JSON mapping takes each field under its camelCase name or its proto name (its own curl examples
// send `generation_config` and `safety_settings`).
const GEMINI_FIELDS = new Set(
  [
    'contents',
    'systemInstruction',
    'tools',
    'toolConfig',
    'generationConfig',
    'safetySettings',
    'cachedContent',
    'labels',
  ].flatMap((k) => [k, k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)]),
);
const GEMINI_REFUSED_SCHEMA_KEYS = [
  '$schema',
  'additionalProperties',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'propertyNames',
];

function geminiProblem(body: any): string | null {
  for (const k of Object.keys(body ?? {}))
    if (!GEMINI_FIELDS.has(k))
      return `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`;
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return '* GenerateContentRequest.contents: contents is not specified';
  for (const c of body.contents)
    if (c.role !== 'user' && c.role !== 'model') return `Please use a valid role: user, model.`;
  const decls = JSON.stringify(body.tools ?? []);
  for (const k of GEMINI_REFUSED_SCHEMA_KEYS)
    if (decls.includes(`"${k}"`))
      return `Invalid JSON payload received. Unknown name "${k}" at 'tools[0].function_declarations[0].parameters'`;
  return null;
}

const googleError = (res: ServerResponse, code: number, status: string, message: string) =>
  send(res, code, { error: { code, message, status } });

export async function startFormatsMock(): Promise<FormatsMock> {
  const mock: FormatsMock = { url: '', requests: [], close: async () => {} };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const [path, query = ''] = (req.url ?? '').split('?');
    const body = parts.length ? JSON.parse(Buffer.concat(parts).toString()) : null;
    mock.requests.push({ path, query, headers: req.headers, body, raw: Buffer.concat(parts).toString() });

    // Model lists, in each provider's documented shape (no recording).
    if (req.method === 'GET' && path === '/v1/models') {
      if (req.headers['x-api-key'] !== 'sk-ant-mock')
        return anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
      const ids = ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'];
      return send(res, 200, {
        data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-09-29T00:00:00Z' })),
        has_more: false,
        first_id: ids[0],
        last_id: ids[1],
      });
    }
    if (req.method === 'GET' && path === '/v1beta/models') {
      if (req.headers['x-goog-api-key'] !== 'gm-mock')
        return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
      return send(res, 200, {
        models: ['gemini-2.5-flash', 'gemini-2.5-pro'].map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ['generateContent', 'countTokens'],
        })),
      });
    }
    if (path === '/v1/messages') {
      if (req.headers['x-api-key'] !== 'sk-ant-mock')
        return anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
      if (!req.headers['anthropic-version'])
        return anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
      if (String(body?.model).endsWith('-error'))
        return send(res, 400, fixtureJson('anthropic/messages/error-invalid-request.json'));
      const problem = anthropicProblem(body);
      if (problem) return anthropicError(res, 400, 'invalid_request_error', problem);
      const cached = JSON.stringify(body).includes('"cache_control"');
      const searches = body.tools?.some((t: any) => String(t?.type).startsWith('web_search_'));
      const name = searches
        ? 'web-search'
        : body.thinking?.type === 'enabled'
          ? 'thinking'
          : body.tools?.length
            ? body.stream
              ? 'tool-use-parallel'
              : 'tool-use-no-args'
            : cached && body.stream
              ? 'cache-write'
              : 'text';
      if (!body.stream) return send(res, 200, fixtureJson(`anthropic/messages/${name}.json`));
      return sendStream(
        res,
        fixtureChunks(`anthropic/messages/${name}.chunks.txt`).map(
          (c) => `event: ${JSON.parse(c).type}\ndata: ${c}\n\n`,
        ),
        String(body.model).endsWith('-slow') ? 40 : 0,
      );
    }

    const embed = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/.exec(path);
    if (embed) {
      if (req.headers['x-goog-api-key'] !== 'gm-mock')
        return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
      // Google's documented shapes (no recording): one vector per text, no usage.
      const vector = (text: string) => ({ values: [text.length / 100, 0.25, -0.5] });
      if (embed[2] === 'embedContent') {
        if (!body?.content?.parts) return googleError(res, 400, 'INVALID_ARGUMENT', 'content is required');
        return send(res, 200, { embedding: vector(body.content.parts.map((p: any) => p.text).join('')) });
      }
      if (!Array.isArray(body?.requests))
        return googleError(res, 400, 'INVALID_ARGUMENT', 'requests is required');
      for (const r of body.requests)
        if (r.model !== `models/${embed[1]}`)
          return googleError(
            res,
            400,
            'INVALID_ARGUMENT',
            `Model ${r.model} does not match the request model.`,
          );
      return send(res, 200, {
        embeddings: body.requests.map((r: any) => vector(r.content.parts.map((p: any) => p.text).join(''))),
      });
    }
    const gemini = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
    if (gemini) {
      if (req.headers['x-goog-api-key'] !== 'gm-mock')
        return googleError(res, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
      const [, model, action] = gemini;
      if (model.endsWith('-error'))
        return send(res, 429, fixtureJson('google/generate-content/error-429-resource-exhausted.json'));
      const problem = geminiProblem(body);
      if (problem) return googleError(res, 400, 'INVALID_ARGUMENT', problem);
      const stream = action === 'streamGenerateContent';
      if (stream && !new URLSearchParams(query).has('alt'))
        return googleError(res, 400, 'INVALID_ARGUMENT', 'this mock only answers streams with alt=sse');
      const name = body.tools?.length
        ? 'function-call'
        : stream &&
            body.generationConfig?.thinkingConfig &&
            body.generationConfig.thinkingConfig.thinkingBudget !== 0
          ? 'thought-parts'
          : 'text';
      if (!stream) return send(res, 200, fixtureJson(`google/generate-content/${name}.json`));
      return sendStream(
        res,
        fixtureChunks(`google/generate-content/${name}.chunks.txt`).map((c) => `data: ${c}\r\n\r\n`),
      );
    }

    if (path === '/v1/responses') {
      if (req.headers.authorization !== 'Bearer sk-resp-mock')
        return send(res, 401, {
          error: {
            message: 'Incorrect API key provided',
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_api_key',
          },
        });
      if (String(body?.model).endsWith('-error'))
        return send(res, 429, fixtureJson('openai/responses/error-insufficient-quota.json'));
      if (body?.input === undefined)
        return send(res, 400, {
          error: {
            message: "Missing required parameter: 'input'.",
            type: 'invalid_request_error',
            param: 'input',
            code: 'missing_required_parameter',
          },
        });
      const name = body.tools?.some((t: any) => String(t?.type).startsWith('web_search'))
        ? 'web-search'
        : body.tools?.length
          ? 'reasoning-function-call'
          : body.reasoning
            ? 'reasoning-summary'
            : 'text';
      if (!body.stream)
        return send(
          res,
          200,
          fixtureJson(
            `openai/responses/${name === 'reasoning-function-call' ? 'reasoning-summary' : name}.json`,
          ),
        );
      return sendStream(
        res,
        fixtureChunks(`openai/responses/${name}.chunks.txt`).map(
          (c) => `event: ${JSON.parse(c).type}\ndata: ${c}\n\n`,
        ),
      );
    }
    send(res, 404, { error: { message: `mock has no ${path}` } });
  }

  const served = await serveMock(handle);
  mock.url = served.url;
  mock.close = served.close;
  return mock;
}
