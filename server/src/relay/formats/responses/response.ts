import { RelayError } from '../../relay-error.ts';
import { isObj } from '../chat/check.ts';
import { newId } from '../common.ts';
import type { CodecContext, HubPart, HubResponse } from '../hub.ts';
import { errorOf } from './errors.ts';
import { outputItems, partsOfItem } from './items.ts';
import { hubStop, responseStatus } from './status.ts';
import { encodeUsage, usageWithSearches } from './usage.ts';

const badAnswer = (message: string) =>
  new RelayError(502, message, 'upstream_error', 'bad_response', null, false);

/** An upstream's Response object as a hub response; a failed response is thrown as its error. */
export function decodeResponse(body: unknown, ctx: CodecContext): HubResponse {
  if (!isObj(body)) throw badAnswer('the upstream answered with no JSON object');
  if (body.status === 'failed' || (isObj(body.error) && !Array.isArray(body.output))) {
    const e = errorOf(isObj(body.error) ? body.error : { message: 'the upstream response failed' }, 0);
    throw new RelayError(e.status, e.message, 'upstream_error', e.code ?? null, e.param ?? null, false);
  }
  const parts: HubPart[] = (Array.isArray(body.output) ? body.output : []).flatMap(partsOfItem);
  const hasCalls = parts.some((p) => p.type === 'tool_call');
  return {
    id: typeof body.id === 'string' && body.id ? body.id : newId('resp_'),
    model: typeof body.model === 'string' && body.model ? body.model : ctx.model,
    created:
      typeof body.created_at === 'number' && body.created_at > 0
        ? Math.floor(body.created_at)
        : Math.floor(Date.now() / 1000),
    parts,
    stop: hubStop(body.status, body.incomplete_details, hasCalls),
    usage: usageWithSearches(body.usage, body.output),
  };
}

/** A Response id for a hub id: other formats' ids get OpenAI's `resp_` prefix. */
export const responseId = (id: string) => (id.startsWith('resp_') ? id : id ? `resp_${id}` : newId('resp_'));

/**
 * The fields of a Response object besides id, status, output and usage. The request is not known here, so
 * the request echoes are the API's defaults.
 */
export function responseShell(id: string, model: string, created: number) {
  return {
    id,
    object: 'response',
    created_at: created,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: [] as unknown[],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage: null as unknown,
    user: null,
    metadata: {},
  };
}

/** A hub response as a whole Response object. */
export function encodeResponse(res: HubResponse, ctx: CodecContext): unknown {
  const { status, incomplete_details } = responseStatus(res.stop, res.promptBlocked);
  return {
    ...responseShell(responseId(res.id), res.model, res.created),
    status,
    incomplete_details,
    output: outputItems(res.parts, status, ctx.customTools),
    usage: encodeUsage(res.usage),
  };
}
