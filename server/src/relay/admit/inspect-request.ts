import { PromptMeter, type PromptSize, textSize } from '../billing/prompt-size.ts';
import { isBase64 } from '../formats/common.ts';
import { badRequest } from '../relay-error.ts';

/** The OpenAI endpoints the relay serves; each is one client path. */
export type Mode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'moderations'
  | 'images'
  | 'speech'
  | 'transcriptions'
  | 'translations'
  | 'rerank'
  /** Anthropic count_tokens, Gemini countTokens, Responses input_tokens: counted here, never billed. */
  | 'count_tokens';

export const MODE_PATHS: Record<Mode, string> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  moderations: '/v1/moderations',
  images: '/v1/images/generations',
  speech: '/v1/audio/speech',
  transcriptions: '/v1/audio/transcriptions',
  translations: '/v1/audio/translations',
  rerank: '/v1/rerank',
  count_tokens: '/v1/messages/count_tokens',
};

/** What the gateway reads from a client request before choosing a channel. */
export interface Inspected {
  model: string;
  stream: boolean;
  /** The client asked for the usage chunk (stream_options.include_usage). */
  wantsUsage: boolean;
  /** Largest answer the client allows, 0 when unset. */
  maxTokens: number;
  /** Cheap prompt-size estimate (UTF-8 bytes / 3, images at a typical cost): the hold's admission threshold. */
  promptEstimate: number;
  /** The most the prompt can count (billing/prompt-size.ts): what the hold reserves. */
  promptBound: number;
  /** Text whose tokens are the prompt when the upstream reports none (embeddings, moderations, speech). */
  inputText: string;
  images?: { n: number; size: string; quality: string };
}

const MAX_TOKENS_LIMIT = 2 ** 30;

const NEWLINE = Symbol('newline');

/**
 * Calls `each` with every piece of prompt text in a value: a string, a list (items joined by newlines), or a
 * part with `text` or `content`. Walks with an explicit stack: the value is the client's, of any depth.
 */
function eachText(v: unknown, each: (text: string) => void): void {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (x === NEWLINE) each('\n');
    else if (typeof x === 'string') each(x);
    else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) {
        stack.push(x[i]);
        if (i > 0) stack.push(NEWLINE);
      }
    } else if (x && typeof x === 'object') {
      const o = x as Record<string, unknown>;
      if (typeof o.text === 'string') each(o.text);
      else if (o.content !== undefined) stack.push(o.content);
    }
  }
}

function textOf(v: unknown): string {
  const parts: string[] = [];
  eachText(v, (t) => parts.push(t));
  return parts.join('');
}

/** UTF-8 size of what textOf would return, without building the string (chat prompts are only estimated). */
function textBytes(v: unknown): number {
  let n = 0;
  eachText(v, (t) => {
    n += Buffer.byteLength(t);
  });
  return n;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

/** Chat `messages`: a non-empty list of objects with a known role and a string, null or list-of-parts content. */
function checkMessages(messages: unknown): asserts messages is unknown[] {
  const bad = (why: string) => badRequest(why, 'invalid_value', 'messages');
  if (!Array.isArray(messages) || messages.length === 0)
    throw bad('messages is required and must be a non-empty array');
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw bad(`messages[${i}] must be an object`);
    const { role, content } = m as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role))
      throw bad(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`);
    if (content === undefined || content === null || typeof content === 'string') continue;
    if (!Array.isArray(content))
      throw bad(`messages[${i}].content must be a string, null or an array of content parts`);
    for (const [j, part] of content.entries()) {
      if (!part || typeof part !== 'object' || typeof (part as { type?: unknown }).type !== 'string')
        throw bad(`messages[${i}].content parts must be objects with a string type`);
      checkImageData(part as Record<string, unknown>, `messages[${i}].content[${j}].image_url.url`);
    }
  }
}

/** A chat request's prompt size: message text, tool definitions, and every image, audio and file part. */
function chatSize(messages: unknown[], tools: unknown): PromptSize {
  const meter = new PromptMeter().text(textBytes(messages)).turn(messages.length);
  if (Array.isArray(tools)) meter.text(Buffer.byteLength(JSON.stringify(tools)));
  for (const m of messages) {
    const content = (m as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const part of content as Array<Record<string, any>>) {
      if (part.type === 'image_url') meter.image();
      else if (part.type === 'input_audio') meter.file(stringOr(part.input_audio?.data));
      else if (part.type === 'file') meter.file(stringOr(part.file?.file_data));
    }
  }
  return meter.size();
}

const stringOr = (v: unknown) => (typeof v === 'string' ? v : undefined);

const sized = (size: PromptSize) => ({ promptEstimate: size.estimate, promptBound: size.bound });

/** An image_url part's data URL must carry base64 (refused here on every path, converted or not). */
function checkImageData(part: Record<string, unknown>, param: string): void {
  if (part.type !== 'image_url') return;
  const img = part.image_url;
  const url = typeof img === 'string' ? img : (img as { url?: unknown } | null)?.url;
  const m = typeof url === 'string' ? /^data:[^;,]*;base64,(.*)$/s.exec(url) : null;
  if (m && !isBase64(m[1]))
    throw badRequest(`the image data URL in ${param} is not valid base64`, 'invalid_value', param);
}

function intField(body: Record<string, unknown>, name: string): number {
  const v = body[name];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_TOKENS_LIMIT) {
    throw badRequest(
      `${name} must be a non-negative integer no larger than ${MAX_TOKENS_LIMIT}`,
      'invalid_value',
      name,
    );
  }
  return v;
}

function requireModel(body: Record<string, unknown>, fallback?: string): string {
  const m = body.model ?? fallback;
  if (m === undefined || m === null || m === '')
    throw badRequest('model is required', 'model_required', 'model');
  if (typeof m !== 'string') throw badRequest('model must be a string', 'invalid_value', 'model');
  return m;
}

/** Validates a JSON body for its endpoint and reads what routing and billing need. 400 on anything malformed. */
export function inspectJson(mode: Mode, body: unknown): Inspected {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('request body must be a JSON object', 'invalid_request');
  const b = body as Record<string, unknown>;
  const stream = b.stream === true;
  if (b.stream !== undefined && typeof b.stream !== 'boolean')
    throw badRequest('stream must be a boolean', 'invalid_value', 'stream');
  const so = b.stream_options as Record<string, unknown> | undefined;
  const wantsUsage = stream && so?.include_usage === true;
  const base = { stream, wantsUsage, maxTokens: 0, inputText: '' };
  switch (mode) {
    case 'chat': {
      const model = requireModel(b);
      checkMessages(b.messages);
      const maxTokens = Math.max(intField(b, 'max_tokens'), intField(b, 'max_completion_tokens'));
      return { stream, wantsUsage, maxTokens, inputText: '', model, ...sized(chatSize(b.messages, b.tools)) };
    }
    case 'completions': {
      const model = requireModel(b);
      if (b.prompt === undefined || b.prompt === '')
        throw badRequest('prompt is required', 'invalid_value', 'prompt');
      const text = textOf(b.prompt);
      return {
        ...base,
        model,
        maxTokens: intField(b, 'max_tokens'),
        ...sized(textSize(text)),
        inputText: text,
      };
    }
    case 'embeddings':
    case 'moderations': {
      const model = requireModel(b, mode === 'moderations' ? 'omni-moderation-latest' : undefined);
      const text = textOf(b.input);
      if (b.input === undefined || b.input === null || text === '')
        throw badRequest('input is required', 'invalid_value', 'input');
      return {
        ...base,
        stream: false,
        wantsUsage: false,
        model,
        ...sized(textSize(text)),
        inputText: text,
      };
    }
    case 'images': {
      const model = requireModel(b, 'dall-e-2');
      if (typeof b.prompt !== 'string' || !b.prompt.trim())
        throw badRequest('prompt is required', 'invalid_value', 'prompt');
      const n = b.n === undefined ? 1 : b.n;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 10)
        throw badRequest('n must be an integer from 1 to 10', 'invalid_value', 'n');
      const size = b.size === undefined ? '1024x1024' : String(b.size);
      if (!/^\d+x\d+$/.test(size) && size !== 'auto')
        throw badRequest('size must look like 1024x1024', 'invalid_value', 'size');
      const quality = b.quality === undefined ? 'standard' : String(b.quality);
      return {
        ...base,
        stream: false,
        wantsUsage: false,
        model,
        promptEstimate: 0,
        promptBound: 0,
        images: { n, size, quality },
      };
    }
    case 'speech': {
      const model = requireModel(b);
      if (typeof b.input !== 'string' || !b.input)
        throw badRequest('input is required', 'invalid_value', 'input');
      return {
        ...base,
        stream: false,
        wantsUsage: false,
        model,
        promptEstimate: 0,
        promptBound: 0,
        inputText: b.input,
      };
    }
    case 'rerank': {
      const model = requireModel(b);
      if (typeof b.query !== 'string' || !b.query)
        throw badRequest('query is required', 'invalid_query', 'query');
      if (!Array.isArray(b.documents) || b.documents.length === 0)
        throw badRequest('documents must be a non-empty array', 'invalid_documents', 'documents');
      const text = b.query + textOf(b.documents);
      return {
        ...base,
        stream: false,
        wantsUsage: false,
        model,
        ...sized(textSize(text)),
        inputText: text,
      };
    }
    default:
      throw badRequest('this endpoint expects multipart/form-data', 'invalid_request');
  }
}
