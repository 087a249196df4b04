import { rng } from '../logs/rows.ts';

/**
 * The operator's traffic of issue 29, as data: 200 users holding 1,000 tokens (five each) picked with a Zipf
 * skew, 12 priced models on channels of three formats, clients 60% OpenAI chat, 25% Anthropic Messages and
 * 15% Gemini, 30% of requests on a channel of another format (converted), 40% streamed, prompts of 50-4,000
 * characters. Deterministic: every run and both targets (gateway and bare proxy) get the same requests.
 */
export const USERS = 200;
export const TOKENS_PER_USER = 5;
export const TOKENS = USERS * TOKENS_PER_USER;

export type Format = 'openai' | 'anthropic' | 'gemini';
/** Channel type per format (OpenAI, Anthropic Claude, Google Gemini) and the models each channel serves. */
export const CHANNELS: Array<{ format: Format; type: number; models: string[] }> = [
  {
    format: 'openai',
    type: 1,
    models: ['gpt-4o-mini', 'gpt-4o', 'o3-mini', 'deepseek-chat', 'qwen-max', 'glm-4'],
  },
  { format: 'anthropic', type: 14, models: ['claude-3-5-sonnet', 'claude-3-haiku', 'claude-sonnet-4'] },
  { format: 'gemini', type: 24, models: ['gemini-2.0-flash', 'gemini-1.5-pro', 'gemini-2.5-flash'] },
];
export const MODEL_RATIOS: Record<string, number> = Object.fromEntries(
  CHANNELS.flatMap((c) => c.models).map((m, i) => [m, 0.05 + i * 0.25]),
);

/** The key of token `i` (0-based): 48 characters, as the console makes them. */
export const tokenKey = (i: number) => `mix${String(i).padStart(6, '0')}`.padEnd(48, 'k');

export interface MixRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  format: Format;
  converted: boolean;
}

const WORDS =
  'the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches'.split(' ');

function prompt(rand: () => number): string {
  const length = 50 + Math.floor(rand() * 3950);
  let s = '';
  while (s.length < length) s += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
  return s.slice(0, length);
}

/** A Zipf(1.1) pick of a token index: a few tokens carry most of the traffic. */
function zipf(rand: () => number): () => number {
  const weights = Array.from({ length: TOKENS }, (_, i) => 1 / (i + 1) ** 1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  let acc = 0;
  for (const w of weights) {
    acc += w / total;
    cumulative.push(acc);
  }
  return () => {
    const x = rand();
    let lo = 0;
    let hi = TOKENS - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    // Spread the heavy ranks over users: token 0 is user 0's, token 1 user 1's, ...
    return (lo % USERS) * TOKENS_PER_USER + Math.floor(lo / USERS);
  };
}

function request(format: Format, model: string, stream: boolean, key: string, text: string): MixRequest {
  if (format === 'openai')
    return {
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, max_tokens: 256, messages: [{ role: 'user', content: text }] }),
      stream,
      format,
      converted: false,
    };
  if (format === 'anthropic')
    return {
      path: '/v1/messages',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, max_tokens: 256, messages: [{ role: 'user', content: text }] }),
      stream,
      format,
      converted: false,
    };
  return {
    path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text }] }],
      generationConfig: { maxOutputTokens: 256 },
    }),
    stream,
    format,
    converted: false,
  };
}

/** Shares of the mix served by a channel of another format, and streamed (MIX_CONVERTED, MIX_STREAMED). */
const CONVERTED = Number(process.env.MIX_CONVERTED ?? 0.3);
const STREAMED = Number(process.env.MIX_STREAMED ?? 0.4);

/** `n` requests of the mix (the load cycles through them). */
export function makeMix(n: number, seed = 29): MixRequest[] {
  const rand = rng(seed);
  const pickToken = zipf(rand);
  const out: MixRequest[] = [];
  for (let i = 0; i < n; i++) {
    const f = rand();
    const format: Format = f < 0.6 ? 'openai' : f < 0.85 ? 'anthropic' : 'gemini';
    const converted = rand() < CONVERTED;
    const others = CHANNELS.filter((c) => (c.format === format) !== converted);
    const channel = others[Math.floor(rand() * others.length)];
    const model = channel.models[Math.floor(rand() * channel.models.length)];
    const stream = rand() < STREAMED;
    const r = request(format, model, stream, `sk-${tokenKey(pickToken())}`, prompt(rand));
    r.converted = converted;
    out.push(r);
  }
  return out;
}
