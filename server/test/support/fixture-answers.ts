import { fixtureChunks, fixtureJson } from './fixtures.ts';

/**
 * What a recorded upstream answer says, read straight from the recording: its text, thinking, tool calls and
 * token counts. The format tests compare what a client parsed through the gateway, and the quota charged,
 * with these.
 */
export interface RecordedAnswer {
  text: string;
  thinking: string;
  calls: Array<{ name: string; args: unknown }>;
  /** Prompt tokens in all (cache reads and writes included), cache reads, 5-minute and 1-hour writes, output. */
  usage: { prompt: number; cacheRead: number; write5m: number; write1h: number; output: number };
}

const blank = (): RecordedAnswer => ({
  text: '',
  thinking: '',
  calls: [],
  usage: { prompt: 0, cacheRead: 0, write5m: 0, write1h: 0, output: 0 },
});

const parseArgs = (s: string) => (s.trim() ? JSON.parse(s) : {});

export function chatAnswer(rel: string): RecordedAnswer {
  const a = blank();
  const useUsage = (u: any) => {
    if (!u) return;
    a.usage.prompt = u.prompt_tokens;
    a.usage.output = Math.max(u.completion_tokens, u.total_tokens - u.prompt_tokens);
    a.usage.cacheRead = u.prompt_tokens_details?.cached_tokens || u.prompt_cache_hit_tokens || 0;
  };
  if (rel.endsWith('.json')) {
    const j = fixtureJson(rel);
    const m = j.choices[0].message;
    a.text = m.content ?? '';
    a.thinking = m.reasoning_content ?? '';
    for (const t of m.tool_calls ?? [])
      a.calls.push({ name: t.function.name, args: parseArgs(t.function.arguments) });
    useUsage(j.usage);
    return a;
  }
  const args: string[] = [];
  for (const line of fixtureChunks(rel)) {
    if (line === '[DONE]') continue;
    const c = JSON.parse(line);
    useUsage(c.usage);
    const d = c.choices?.[0]?.delta;
    if (!d) continue;
    a.text += d.content ?? '';
    a.thinking += d.reasoning_content ?? '';
    for (const t of d.tool_calls ?? []) {
      if (t.function?.name) a.calls[t.index] = { name: t.function.name, args: undefined };
      args[t.index] = (args[t.index] ?? '') + (t.function?.arguments ?? '');
    }
  }
  a.calls.forEach((c, i) => {
    c.args = parseArgs(args[i] ?? '');
  });
  return a;
}

function anthropicUsage(a: RecordedAnswer, u: any) {
  if (!u) return;
  if (u.input_tokens !== undefined) {
    const w5 = u.cache_creation?.ephemeral_5m_input_tokens ?? u.cache_creation_input_tokens ?? 0;
    const w1 = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    a.usage.write5m = w5;
    a.usage.write1h = w1;
    a.usage.cacheRead = u.cache_read_input_tokens ?? 0;
    a.usage.prompt = u.input_tokens + w5 + w1 + a.usage.cacheRead;
  }
  if (u.output_tokens !== undefined) a.usage.output = u.output_tokens;
}

export function anthropicAnswer(rel: string): RecordedAnswer {
  const a = blank();
  if (rel.endsWith('.json')) {
    const j = fixtureJson(rel);
    for (const b of j.content) {
      if (b.type === 'text') a.text += b.text;
      if (b.type === 'thinking') a.thinking += b.thinking;
      if (b.type === 'tool_use') a.calls.push({ name: b.name, args: b.input });
    }
    anthropicUsage(a, j.usage);
    return a;
  }
  const args = new Map<number, string>();
  const callAt = new Map<number, number>();
  for (const line of fixtureChunks(rel)) {
    const e = JSON.parse(line);
    if (e.type === 'message_start') anthropicUsage(a, e.message.usage);
    if (e.type === 'message_delta') anthropicUsage(a, e.usage);
    if (e.type === 'content_block_start' && e.content_block.type === 'tool_use') {
      callAt.set(e.index, a.calls.length);
      a.calls.push({ name: e.content_block.name, args: undefined });
    }
    if (e.type === 'content_block_delta') {
      if (e.delta.type === 'text_delta') a.text += e.delta.text;
      if (e.delta.type === 'thinking_delta') a.thinking += e.delta.thinking;
      if (e.delta.type === 'input_json_delta')
        args.set(e.index, (args.get(e.index) ?? '') + e.delta.partial_json);
    }
  }
  for (const [block, i] of callAt) a.calls[i].args = parseArgs(args.get(block) ?? '');
  return a;
}

function geminiChunk(a: RecordedAnswer, c: any) {
  for (const p of c.candidates?.[0]?.content?.parts ?? []) {
    if (typeof p.text === 'string') {
      if (p.thought) a.thinking += p.text;
      else a.text += p.text;
    }
    if (p.functionCall) a.calls.push({ name: p.functionCall.name, args: p.functionCall.args ?? {} });
  }
  const u = c.usageMetadata;
  if (u) {
    a.usage.prompt = u.promptTokenCount ?? 0;
    a.usage.output = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
    a.usage.cacheRead = u.cachedContentTokenCount ?? 0;
  }
}

export function geminiAnswer(rel: string): RecordedAnswer {
  const a = blank();
  if (rel.endsWith('.json')) geminiChunk(a, fixtureJson(rel));
  else for (const line of fixtureChunks(rel)) geminiChunk(a, JSON.parse(line));
  return a;
}

export function responsesAnswer(rel: string): RecordedAnswer {
  const a = blank();
  const response = rel.endsWith('.json')
    ? fixtureJson(rel)
    : fixtureChunks(rel)
        .map((l) => JSON.parse(l))
        .find((e) => e.type === 'response.completed').response;
  for (const item of response.output) {
    if (item.type === 'message') for (const c of item.content) if (c.type === 'output_text') a.text += c.text;
    // Summary parts read as paragraphs of one thinking text.
    if (item.type === 'reasoning')
      a.thinking += (item.summary ?? []).map((s: { text: string }) => s.text).join('\n\n');
    if (item.type === 'function_call') a.calls.push({ name: item.name, args: parseArgs(item.arguments) });
  }
  const u = response.usage;
  a.usage.prompt = u.input_tokens;
  a.usage.cacheRead = u.input_tokens_details?.cached_tokens ?? 0;
  a.usage.output = u.output_tokens;
  return a;
}

/**
 * The quota of an answer at the prices the format tests set (model ratio 1, completion ratio 2, cache-read
 * ratio 0.1, cache-write ratio 1.25, so a 1-hour write costs 2): worked out in fortieths to stay exact.
 */
export function expectedQuota(u: RecordedAnswer['usage']): number {
  const plain = u.prompt - u.cacheRead - u.write5m - u.write1h;
  const fortieths = 40 * plain + 4 * u.cacheRead + 50 * u.write5m + 80 * u.write1h + 80 * u.output;
  return Math.max(1, Math.round(fortieths / 40));
}
