import { createHash, randomBytes } from 'node:crypto';
import { parseTraceparent, TRACE_HEADER, TRACEPARENT_HEADER } from '@openlegion/protocol';

/** The host's trace ids (`x-trace-id`) are any short text; they are checked like this wherever they arrive. */
const TRACE_ID = /^[\w.:@-]{1,100}$/;

/**
 * The W3C trace id (32 hex) of one of the project's trace ids: the first half of its SHA-256. Every
 * hop that knows the project's id (the CLI, the lanes, the agent's calls, the egress proxy) lands
 * in the same OpenTelemetry trace without another id to carry or store.
 */
export function otelTraceIdOf(traceId: string): string {
  return createHash('sha256').update(traceId).digest('hex').slice(0, 32);
}

/**
 * A span id (16 hex) that follows from what the span is (`turn:<item>:<attempt>`): the lanes know
 * the id of a turn's span when they call the agent, and the span is written later from the lane's
 * facts, with no table of open spans between.
 */
export function spanIdOf(seed: string): string {
  const id = createHash('sha256').update(seed).digest('hex').slice(0, 16);
  // All zeros is not a valid span id; one in 2^64, but cheap to rule out.
  return id === '0000000000000000' ? '0000000000000001' : id;
}

/** A fresh random span id (16 hex). */
export function newSpanId(): string {
  return randomBytes(8).toString('hex');
}

/** The span of a lane item's turn on its agent (one per attempt): the parent of the agent's calls. */
export function turnSpanIdOf(item: { id: number; attempts: number }): string {
  return spanIdOf(`turn:${item.id}:${item.attempts}`);
}

/** `traceparent` for a call made under `spanId` of `traceId` (W3C trace id), sampled. */
export function formatTraceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** Where a call's span hangs: the W3C trace, its parent span when the caller named one, and the project's id. */
export interface CallTrace {
  /** The project's own trace id (`x-trace-id`). */
  traceId: string;
  /** Its W3C trace id. */
  otelTraceId: string;
  /** The caller's span (its `traceparent`), when it sent one of this trace. */
  parentSpanId: string | undefined;
}

/**
 * The trace a request was made under: its `x-trace-id`, and its `traceparent` only when that names
 * the same trace (an agent cannot hang its calls under another trace's spans). Undefined without a
 * valid `x-trace-id`.
 */
export function callTraceOf(headers: Record<string, string | string[] | undefined>): CallTrace | undefined {
  const traceId = headers[TRACE_HEADER];
  if (typeof traceId !== 'string' || !TRACE_ID.test(traceId)) return undefined;
  const otelTraceId = otelTraceIdOf(traceId);
  const parent = parseTraceparent(headers[TRACEPARENT_HEADER]);
  return { traceId, otelTraceId, parentSpanId: parent?.traceId === otelTraceId ? parent.spanId : undefined };
}
