import { relayErrorOf } from '../../answer/stream/format-stream.ts';
import { newId, notAnAnswer } from '../../formats/common.ts';
import type { CodecContext, HubPart, HubResponse, HubUsage } from '../../formats/hub.ts';
import { emptyUsage } from '../../formats/hub.ts';
import { frameCode, sparkError } from './errors.ts';
import { readFrame } from './frames.ts';

/**
 * A whole Spark answer (the array of frames the adapter collected from the socket) as a hub response. The
 * first frame with an error code is thrown as a RelayError; an answer without its last frame is a 502.
 */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  const frames = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : null;
  if (!frames) throw notAnAnswer();
  let id = '';
  let text = '';
  let usage: HubUsage = emptyUsage();
  let finished = false;
  const parts: HubPart[] = [];
  for (const frame of frames) {
    const code = frameCode(frame);
    if (code !== null) throw relayErrorOf(sparkError(code, frame.header?.message, 0));
    const f = readFrame(frame);
    id ||= f.sid;
    text += f.text;
    parts.push(...f.calls);
    if (f.usage) usage = f.usage;
    if (f.last) finished = true;
  }
  if (!finished)
    throw relayErrorOf({
      status: 502,
      kind: 'server',
      message: 'the Spark answer ended before its last frame',
      code: 'bad_response',
    });
  if (text) parts.unshift({ type: 'text', text });
  return {
    id: id || newId('spark-'),
    model: ctx.model,
    created: Math.floor(Date.now() / 1000),
    parts,
    stop: parts.some((p) => p.type === 'tool_call') ? 'tool_calls' : 'end',
    usage,
  };
}
