import { isObj, type Obj } from '../../formats/chat/check.ts';
import { parseJsonOrNull } from '../../formats/common.ts';
import { RelayError } from '../../relay-error.ts';
import type { ChannelEntry } from '../../table-cache/channels.ts';
import { errorAnswer, jsonAnswer } from '../error-answer.ts';
import type { HttpSender, ProviderSend, UpstreamResponse } from '../types.ts';
import { aliError, decodeError } from './errors.ts';

/** How long an image task may take, and the poll interval unless the channel sets `poll_interval_ms`. */
const TASK_TIMEOUT_MS = 180_000;
const POLL_MS = 1_000;
const POLL_MS_RANGE = [50, 10_000] as const;

/** An OpenAI images request (`{model, prompt, n, size}`) as a Wanx task; a body already in DashScope's shape stays. */
export function taskBody(b: Obj): Obj {
  if (isObj(b.input)) return b;
  const size = typeof b.size === 'string' && /^\d+x\d+$/.test(b.size) ? b.size.replace('x', '*') : undefined;
  return {
    model: b.model,
    input: {
      prompt: b.prompt,
      ...(typeof b.negative_prompt === 'string' ? { negative_prompt: b.negative_prompt } : {}),
    },
    parameters: {
      n: typeof b.n === 'number' ? b.n : 1,
      ...(size ? { size } : {}),
      ...(typeof b.seed === 'number' ? { seed: b.seed } : {}),
    },
  };
}

export function pollInterval(ch: ChannelEntry): number {
  const v = Number(ch.setting.poll_interval_ms);
  if (!Number.isFinite(v) || v <= 0) return POLL_MS;
  return Math.min(POLL_MS_RANGE[1], Math.max(POLL_MS_RANGE[0], Math.round(v)));
}

/**
 * Wanx text-to-image: submit the task (`X-DashScope-Async: enable`), poll `GET /api/v1/tasks/{id}` until it
 * SUCCEEDED or FAILED, and answer in OpenAI's images shape `{created, data:[{url}]}`. Billing stays the
 * images mode's (per image asked for), done by the relay from the request.
 */
export async function imageTask(
  req: ProviderSend,
  ch: ChannelEntry,
  http: HttpSender,
  tasksUrl: string,
): Promise<UpstreamResponse> {
  const body = taskBody(parseJsonOrNull(req.body) ?? {});
  const submitted = await http({
    url: req.url,
    headers: req.headers,
    body: JSON.stringify(body),
    stream: false,
  });
  const first = await submitted.body.text();
  if (submitted.statusCode < 200 || submitted.statusCode >= 300)
    return errorAnswer(decodeError(submitted.statusCode, first));
  const taskId = parseJsonOrNull(first)?.output?.task_id;
  if (typeof taskId !== 'string' || !taskId)
    return errorAnswer(aliError(undefined, 'DashScope accepted no image task', 502));
  const poll = { authorization: req.headers.authorization ?? '', accept: 'application/json' };
  const url = `${tasksUrl}/${encodeURIComponent(taskId)}`;
  const interval = pollInterval(ch);
  const deadline = Date.now() + TASK_TIMEOUT_MS;
  while (Date.now() < deadline) {
    await sleep(interval, req.signal);
    const res = await http({ url, headers: poll, method: 'GET', stream: false });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode >= 300) return errorAnswer(decodeError(res.statusCode, text));
    const out = parseJsonOrNull(text)?.output;
    const status = isObj(out) ? out.task_status : undefined;
    if (status === 'PENDING' || status === 'RUNNING') continue;
    if (status === 'SUCCEEDED' && isObj(out)) {
      const results = Array.isArray(out.results) ? out.results.filter((r) => isObj(r) && r.url) : [];
      if (results.length)
        return jsonAnswer(200, {
          created: Math.floor(Date.now() / 1000),
          data: results.map((r) => ({
            url: r.url,
            ...(typeof r.actual_prompt === 'string' ? { revised_prompt: r.actual_prompt } : {}),
          })),
        });
    }
    const failed = isObj(out) ? out : {};
    return errorAnswer(aliError(failed.code, failed.message ?? `the image task ended ${String(status)}`, 0));
  }
  throw new RelayError(
    504,
    'the image task did not finish in time',
    'upstream_error',
    'upstream_timeout',
    null,
    false,
  );
}

/** Waits, or stops at once when the call is aborted (the client left, the relay timeout passed). */
function sleep(ms: number, signal: ProviderSend['signal']): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.on('abort', () => {
      clearTimeout(timer);
      reject(abortError());
    });
  });
}

const abortError = () =>
  new RelayError(504, 'the image task was abandoned', 'upstream_error', 'upstream_timeout', null, false);
