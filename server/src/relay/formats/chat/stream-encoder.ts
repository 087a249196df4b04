import { newId, sseData } from '../common.ts';
import {
  type CodecContext,
  emptyUsage,
  type HubEvent,
  type HubStop,
  type HubStreamEncoder,
  type HubUsage,
} from '../hub.ts';
import { encodeError } from './errors.ts';
import { clientCallId } from './response.ts';
import { finishReason } from './stop.ts';
import { encodeUsage } from './usage.ts';

/**
 * Hub events as chat.completion.chunk frames, the sequence OpenAI sends: a first chunk with the role,
 * content / reasoning_content / refusal / tool_calls deltas, a chunk with finish_reason and an empty delta,
 * the `choices: []` usage chunk when the client asked for it (stream_options.include_usage), `[DONE]`.
 * Tool-call indexes count tool calls only (the hub's indexes already do). Custom tool calls stream as
 * function calls with `{"input": ...}` arguments: chunk deltas have no custom shape.
 */
export function streamEncoder(ctx: CodecContext): HubStreamEncoder {
  let id = '';
  let model = ctx.model;
  let created = Math.floor(Date.now() / 1000);
  let opened = false;
  let finished = false;
  let failed = false;
  let usage: HubUsage | undefined;
  const indexes = new Map<number, number>(); // hub tool index -> chat tool index

  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sseData({ id, object: 'chat.completion.chunk', created, model, choices, ...extra });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  /** A delta chunk's bytes up to the delta's fields: id, created and model are fixed once the stream opened. */
  let deltaHead = '';
  /**
   * A text, reasoning or refusal delta, the stream's most frequent chunk, written directly: the same bytes as
   * delta({ [field]: text }) without building and stringifying its objects.
   */
  const textDelta = (field: string, text: string) =>
    `${deltaHead}"${field}":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}\n\n`;

  /** The first chunk (role), sent once before anything else. */
  function open(): string {
    if (opened) return '';
    opened = true;
    if (!id) id = newId('chatcmpl-');
    deltaHead = `data: {"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${JSON.stringify(created)},"model":${JSON.stringify(model)},"choices":[{"index":0,"delta":{`;
    return delta({ role: 'assistant', content: '' });
  }

  function finish(stop: HubStop): string {
    if (finished) return '';
    finished = true;
    return open() + delta({}, finishReason(stop, indexes.size > 0));
  }

  return {
    push(ev: HubEvent): string {
      if (failed) return '';
      switch (ev.type) {
        case 'start':
          if (!opened) {
            id = ev.id || newId('chatcmpl-');
            model = ev.model || model;
            if (ev.created) created = ev.created;
          }
          return open();
        case 'text':
          return ev.text ? open() + textDelta('content', ev.text) : '';
        case 'thinking':
          return ev.text ? open() + textDelta('reasoning_content', ev.text) : '';
        case 'refusal':
          return ev.text ? open() + textDelta('refusal', ev.text) : '';
        case 'tool_call': {
          const index = indexes.size;
          indexes.set(ev.index, index);
          const call = {
            index,
            id: clientCallId(ev),
            type: 'function',
            function: { name: ev.name, arguments: '' },
          };
          return open() + delta({ tool_calls: [call] });
        }
        case 'tool_args': {
          const index = indexes.get(ev.index);
          if (index === undefined || !ev.delta) return '';
          return delta({ tool_calls: [{ index, function: { arguments: ev.delta } }] });
        }
        case 'usage':
          usage = ev.usage;
          return '';
        case 'finish':
          return finish(ev.promptBlocked ? 'content_filter' : ev.stop);
        case 'error':
          failed = true;
          return sseData(encodeError(ev.error, ctx.requestId).body);
        default:
          // Signatures, redacted thinking and other formats' opaque parts have no place in chat.
          return '';
      }
    },
    end(): string {
      if (failed) return 'data: [DONE]\n\n';
      let out = finish('end');
      if (ctx.includeUsage) out += chunk([], { usage: encodeUsage(usage ?? emptyUsage()) });
      return `${out}data: [DONE]\n\n`;
    },
  };
}
