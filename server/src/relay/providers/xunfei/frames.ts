import { isObj, type Obj } from '../../formats/chat/check.ts';
import { decodeUsage } from '../../formats/chat/usage.ts';
import type { HubToolCall, HubUsage } from '../../formats/hub.ts';
import { toolCallOf } from '../baidu/response.ts';

/** What one Spark answer frame carries (`payload.choices.text[]`, `payload.usage.text`, `header.status`). */
export interface FrameContent {
  sid: string;
  text: string;
  calls: HubToolCall[];
  usage: HubUsage | null;
  /** Status 2: the last frame of the answer. */
  last: boolean;
}

export function readFrame(frame: unknown): FrameContent {
  const f: Obj = isObj(frame) ? frame : {};
  const header: Obj = isObj(f.header) ? f.header : {};
  const payload: Obj = isObj(f.payload) ? f.payload : {};
  const choices: Obj = isObj(payload.choices) ? payload.choices : {};
  const items = (Array.isArray(choices.text) ? choices.text : []).filter(isObj);
  const calls: HubToolCall[] = [];
  for (const item of items) {
    const call = toolCallOf(item.function_call);
    if (call) calls.push(call);
  }
  const usage = isObj(payload.usage) && isObj(payload.usage.text) ? decodeUsage(payload.usage.text) : null;
  return {
    sid: typeof header.sid === 'string' ? header.sid : '',
    text: items.map((i) => (typeof i.content === 'string' ? i.content : '')).join(''),
    calls,
    usage,
    last: header.status === 2 || choices.status === 2,
  };
}
