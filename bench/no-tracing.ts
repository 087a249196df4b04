import type * as relayTrace from '../server/src/infra/tracing/relay-trace.ts';

/**
 * The relay's tracing hooks as empty functions, for `bench/cpu.ts --without-tracing`: a build of the gateway
 * without them, to measure what they cost when tracing is off. Typed against the real module so the two stay
 * alike.
 */
const nothing = () => {};
export const traceStart: typeof relayTrace.traceStart = nothing;
export const traceStage: typeof relayTrace.traceStage = nothing;
export const traceAttempt: typeof relayTrace.traceAttempt = nothing;
export const traceFirstByte: typeof relayTrace.traceFirstByte = nothing;
export const traceAttemptFailed: typeof relayTrace.traceAttemptFailed = nothing;
export const traceUsage: typeof relayTrace.traceUsage = nothing;
export const isTraced: typeof relayTrace.isTraced = () => false;
export const traceEnd: typeof relayTrace.traceEnd = (_req, run) => run;
