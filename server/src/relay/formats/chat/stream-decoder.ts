import { capturedString, newId, parseJsonOrNull } from '../common.ts';
import type { CodecContext, HubEvent, HubStreamDecoder, SseEvent } from '../hub.ts';
import { isObj, type Obj } from './check.ts';
import { errorOf } from './errors.ts';
import { contentParts, reasoningOf } from './response.ts';
import { hubStop } from './stop.ts';
import { decodeUsage } from './usage.ts';

/**
 * The stream's most frequent chunk: a text delta of the first choice and nothing else (no finish, usage,
 * error, tool call or reasoning; xAI leaves finish_reason out until the end), among plain top-level fields
 * (id, model, fingerprint, obfuscation...).
 * `[^{[]*` keeps the match at the top level: no other object or array may sit beside `choices`.
 */
const TEXT_DELTA =
  /^\{[^{[]*"choices":\[\{"index":0,"delta":\{"content":("(?:[^"\\]|\\.)*")\}(?:,"logprobs":null)?(?:,"finish_reason":null)?(?:,"logprobs":null)?\}\][^{[]*\}$/;

/**
 * The text of a chunk that is only a text delta, read from its string literal without parsing the whole
 * chunk (about four times cheaper per event); undefined for any other chunk, which takes the full parse.
 */
export function textDeltaOf(data: string): string | undefined {
  return data.includes('"error"') ? undefined : capturedString(TEXT_DELTA.exec(data), 1);
}

/**
 * chat.completion.chunk events as hub events, as they arrive. Dialects handled: Azure's first chunk with an
 * empty id and `choices: []` (prompt filter results), `usage: null` on intermediate chunks, usage with the
 * finish chunk (DeepSeek, Mistral) or after it (OpenAI, xAI), tool calls without `index` (Mistral), an
 * error object inside a 200 stream. Only the first choice is read: the hub carries one answer.
 */
export function streamDecoder(ctx: CodecContext): HubStreamDecoder {
  let started = false;
  let finished = false;
  let failed = false;
  let sawDone = false;
  // OpenAI's tool_calls[].index -> the hub call it feeds. A new id with a name at a known index is a new
  // call (some servers give every parallel call index 0).
  const slots = new Map<number, { hub: number; id: string }>();
  let calls = 0;

  function start(chunk: Obj, out: HubEvent[]) {
    if (started) return;
    started = true;
    out.push({
      type: 'start',
      id: typeof chunk.id === 'string' && chunk.id ? chunk.id : newId('chatcmpl-'),
      model: typeof chunk.model === 'string' && chunk.model ? chunk.model : ctx.model,
      ...(typeof chunk.created === 'number' && chunk.created > 0 ? { created: chunk.created } : {}),
    });
  }

  function toolCalls(list: unknown[], out: HubEvent[]) {
    list.forEach((tc, pos) => {
      if (!isObj(tc)) return;
      const slot = typeof tc.index === 'number' ? tc.index : pos;
      const fn = isObj(tc.function) ? tc.function : {};
      const id = typeof tc.id === 'string' && tc.id ? tc.id : undefined;
      const name = typeof fn.name === 'string' ? fn.name : '';
      let cur = slots.get(slot);
      if (!cur || (id && name && id !== cur.id)) {
        cur = { hub: calls++, id: id ?? newId('call_') };
        slots.set(slot, cur);
        out.push({ type: 'tool_call', index: cur.hub, id: cur.id, name });
      }
      const args =
        typeof fn.arguments === 'string'
          ? fn.arguments
          : isObj(fn.arguments)
            ? JSON.stringify(fn.arguments)
            : '';
      if (args) out.push({ type: 'tool_args', index: cur.hub, delta: args });
    });
  }

  function choice(c: Obj, out: HubEvent[]) {
    const delta = isObj(c.delta) ? c.delta : {};
    const thinking = reasoningOf(delta);
    if (thinking) out.push({ type: 'thinking', text: thinking });
    // A legacy completions stream (/v1/completions) relayed as it came: its text counts like content.
    if (typeof c.text === 'string' && c.text) out.push({ type: 'text', text: c.text });
    for (const p of contentParts(delta.content))
      if (p.type === 'text' || p.type === 'thinking') out.push({ type: p.type, text: p.text });
    if (typeof delta.refusal === 'string' && delta.refusal)
      out.push({ type: 'refusal', text: delta.refusal });
    if (Array.isArray(delta.tool_calls)) toolCalls(delta.tool_calls, out);
    if (isObj(delta.function_call))
      toolCalls([{ index: 0, id: slots.get(0)?.id, function: delta.function_call }], out);
    // After the tool calls: the last argument fragment often shares the chunk with finish_reason.
    if (typeof c.finish_reason === 'string' && c.finish_reason && !finished) {
      finished = true;
      out.push({ type: 'finish', stop: hubStop(c.finish_reason, calls > 0) });
    }
  }

  return {
    push(ev: SseEvent): HubEvent[] {
      const data = ev.data.trim();
      if (failed || !data) return [];
      if (data === '[DONE]') {
        sawDone = true;
        return [];
      }
      if (started) {
        const text = textDeltaOf(data);
        if (text !== undefined) return text ? [{ type: 'text', text }] : [];
      }
      const chunk = ev.json != null ? ev.json : parseJsonOrNull(data);
      if (!isObj(chunk)) return []; // not a chunk (a keep-alive or a provider's comment line)
      const out: HubEvent[] = [];
      if (chunk.error !== undefined && chunk.error !== null) {
        failed = true;
        const e = isObj(chunk.error) ? chunk.error : { message: String(chunk.error) };
        out.push({ type: 'error', error: errorOf(e, 0) });
        return out;
      }
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const first = choices.find((c) => isObj(c) && (c.index === undefined || c.index === 0));
      const usage = isObj(chunk.usage) ? chunk.usage : undefined;
      if (!first && !usage) return out; // Azure's prompt-filter chunk, or another choice's
      start(chunk, out);
      if (isObj(first)) choice(first, out);
      if (usage) out.push({ type: 'usage', usage: decodeUsage(usage) });
      return out;
    },
    end(): HubEvent[] {
      if (!started || finished || failed) return [];
      if (sawDone) return [{ type: 'finish', stop: hubStop(null, calls > 0) }];
      return [
        {
          type: 'error',
          error: { status: 502, kind: 'server', message: 'the upstream stream ended before it finished' },
        },
      ];
    },
  };
}
