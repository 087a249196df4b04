import type * as Api from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Config } from '../../config.ts';

/**
 * The process's tracer, present only when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set. The
 * OpenTelemetry SDK is imported only then: without an endpoint the relay's hooks find no tracer and return
 * at once, and the SDK is not even in memory.
 */
export interface Otel {
  tracer: Api.Tracer;
  api: typeof Api;
  propagator: W3CTraceContextPropagator;
}
let active: Otel | undefined;

export const activeOtel = (): Otel | undefined => active;

/** Starts exporting when an endpoint is configured; returns the shutdown that flushes what is pending. */
export async function startTracing(
  config: Pick<Config, 'otelTracesUrl' | 'otelServiceName'>,
): Promise<(() => Promise<void>) | undefined> {
  const url = config.otelTracesUrl;
  if (!url) return undefined;
  const [
    api,
    core,
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.otelServiceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 1000 })],
  });
  const otel: Otel = {
    tracer: provider.getTracer('modelgate'),
    api,
    propagator: new core.W3CTraceContextPropagator(),
  };
  active = otel;
  return async () => {
    if (active === otel) active = undefined;
    await provider.shutdown();
  };
}
