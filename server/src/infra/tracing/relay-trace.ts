import { channelTypeInfo } from '@modelgate/shared';
import type { Context, Span } from '@opentelemetry/api';
import { activeOtel } from './provider.ts';

/**
 * One relayed request as spans (OpenTelemetry GenAI conventions): a server span `<operation> <model>` with the
 * gateway's stages as children (admission, routing, each upstream attempt with its first byte, settle). The
 * relay pipeline calls these with its request object; when tracing is off each returns at once. Never a
 * prompt, an answer or a key: models, providers, token counts, statuses.
 */
interface RequestTrace {
  root: Span;
  context: Context;
  stage?: Span;
  attempt?: { span: Span; context: Context; started: number };
}

/**
 * A request's trace, on the request object itself. Not a WeakMap: V8's young-generation collector keeps a
 * WeakMap's entries alive, which copied every traced request into the old generation.
 */
const TRACE = Symbol('trace');
type Traced = { [TRACE]?: RequestTrace };
const traceOf = (req: object) => (req as Traced)[TRACE];
/** SpanStatusCode.ERROR, without loading the API when tracing is off. */
const ERROR = 2;

/** What the hooks read of the relay's objects (kept loose so this module does not import the relay). */
interface TracedInput {
  mode: string;
  format: string;
  info: { model: string };
}
interface TracedRequest {
  headers: Record<string, string | string[] | undefined>;
}

/** Starts the request's span, continuing an incoming `traceparent`, and its admission stage. */
export function traceStart(req: TracedRequest, input: TracedInput): void {
  const otel = activeOtel();
  if (!otel) return;
  const { tracer, api } = otel;
  const parent = otel.propagator.extract(api.ROOT_CONTEXT, req.headers, api.defaultTextMapGetter);
  const operation = input.mode === 'chat' ? 'chat' : input.mode;
  const root = tracer.startSpan(
    `${operation} ${input.info.model}`,
    {
      kind: api.SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': operation,
        'gen_ai.request.model': input.info.model,
        'modelgate.client.format': input.format,
      },
    },
    parent,
  );
  const t: RequestTrace = { root, context: api.trace.setSpan(parent, root) };
  (req as Traced)[TRACE] = t;
  t.stage = tracer.startSpan('admission', {}, t.context);
}

/** Ends the stage in progress (and an attempt left open) and starts the next one, as a child of the request. */
export function traceStage(req: object, name: 'routing' | 'settle'): void {
  const t = traceOf(req);
  if (!t) return;
  endOpen(t);
  t.stage = activeOtel()?.tracer.startSpan(name, {}, t.context);
}

/** Starts an upstream attempt's span and passes its context upstream in `headers` (traceparent). */
export function traceAttempt(
  req: object,
  channel: { id: number; type: number },
  model: string,
  headers: Record<string, string>,
): void {
  const t = traceOf(req);
  const otel = activeOtel();
  if (!t || !otel) return;
  const { tracer, api } = otel;
  endOpen(t);
  const provider = channelTypeInfo(channel.type)?.name ?? String(channel.type);
  const span = tracer.startSpan(
    `upstream ${model}`,
    {
      kind: api.SpanKind.CLIENT,
      attributes: {
        'gen_ai.provider.name': provider,
        'gen_ai.system': provider,
        'gen_ai.request.model': model,
        'modelgate.channel.id': channel.id,
      },
    },
    t.context,
  );
  const context = api.trace.setSpan(t.context, span);
  t.attempt = { span, context, started: Date.now() };
  otel.propagator.inject(context, headers, api.defaultTextMapSetter);
}

/** The upstream answered (its status line and headers): a `first byte` span under the attempt. */
export function traceFirstByte(req: object, status: number): void {
  const t = traceOf(req);
  if (!t?.attempt) return;
  t.attempt.span.setAttribute('http.response.status_code', status);
  activeOtel()?.tracer.startSpan('first byte', { startTime: t.attempt.started }, t.attempt.context).end();
}

/** An attempt that failed (the relay may try another channel). */
export function traceAttemptFailed(req: object, status: number, message: string): void {
  const t = traceOf(req);
  if (!t?.attempt) return;
  t.attempt.span.setAttribute('error.type', String(status));
  t.attempt.span.setStatus({ code: ERROR, message });
  t.attempt.span.end();
  t.attempt = undefined;
}

/** The hub's stop reasons in the words of the GenAI conventions' examples (OpenAI's finish reasons). */
const FINISH: Record<string, string> = {
  end: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
};

/** The request has a span (tracing is on): what only a span records is worth reading. */
export const isTraced = (req: object): boolean => traceOf(req) !== undefined;

/** The usage the answer reported and why the model stopped, on the request span. */
export function traceUsage(
  req: object,
  usage: { promptTokens: number; completionTokens: number },
  finish?: string,
): void {
  const t = traceOf(req);
  if (!t) return;
  t.root.setAttributes({
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
  });
  if (finish) t.root.setAttribute('gen_ai.response.finish_reasons', [FINISH[finish] ?? finish]);
}

/** Ends the request's spans when `run` settles; returns `run` unchanged (itself when tracing is off). */
export function traceEnd<T>(req: object, run: Promise<T>): Promise<T> {
  const t = traceOf(req);
  if (!t) return run;
  const end = (status: number, err?: unknown) => {
    endOpen(t);
    t.root.setAttribute('http.response.status_code', status);
    if (err) {
      t.root.setAttribute('error.type', String(status));
      t.root.setStatus({ code: ERROR, message: (err as Error).message });
    }
    t.root.end();
    (req as Traced)[TRACE] = undefined;
  };
  return run.then(
    (v) => {
      end(200);
      return v;
    },
    (err) => {
      end(Number((err as { status?: number }).status) || 500, err);
      throw err;
    },
  );
}

function endOpen(t: RequestTrace): void {
  t.attempt?.span.end();
  t.attempt = undefined;
  t.stage?.end();
  t.stage = undefined;
}
