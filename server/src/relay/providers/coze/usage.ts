import { isObj } from '../../formats/chat/check.ts';
import { count } from '../../formats/common.ts';
import { emptyUsage, type HubUsage } from '../../formats/hub.ts';

/** A chat's usage (`{token_count, input_count, output_count}`) as hub usage. */
export function decodeUsage(u: unknown): HubUsage {
  const o = isObj(u) ? u : {};
  const input = count(o.input_count);
  const output = count(o.output_count);
  // An answer that reports only the total bills it all as output: nothing says how it splits.
  return { ...emptyUsage(), input, output: output || (input ? 0 : count(o.token_count)) };
}
