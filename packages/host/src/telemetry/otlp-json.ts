import type { SpanAttributeValue, TelemetrySpan } from './telemetry-span.js';

/** OTLP status codes. */
const STATUS_ERROR = 2;
const STATUS_UNSET = 0;
/** A span's error message is the work's, clipped: spans leave the host, long text stays in the log. */
const MAX_STATUS_MESSAGE_CHARS = 500;

type AnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AnyValue[] } };

/**
 * The body of one OTLP/HTTP JSON export (`ExportTraceServiceRequest`, proto3 JSON mapping: ids as
 * hex, 64-bit integers as decimal strings), as `POST /v1/traces` takes it with
 * `content-type: application/json`. One resource, one scope: the host.
 */
export function otlpTraceRequest(
  spans: readonly TelemetrySpan[],
  resource: Readonly<Record<string, string>>,
  scope: { name: string; version: string },
): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: attributesOf(resource) },
        scopeSpans: [{ scope, spans: spans.map(spanOf) }],
      },
    ],
  });
}

function spanOf(span: TelemetrySpan) {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNano(span.startMs),
    endTimeUnixNano: unixNano(Math.max(span.endMs, span.startMs)),
    attributes: attributesOf(span.attributes),
    status:
      span.error === undefined
        ? { code: STATUS_UNSET }
        : { code: STATUS_ERROR, message: span.error.slice(0, MAX_STATUS_MESSAGE_CHARS) },
  };
}

/** ms (fractional) → ns as a decimal string; exact to the microsecond, which is all the clock gives. */
function unixNano(ms: number): string {
  const micros = BigInt(Math.round(ms * 1_000));
  return (micros * 1_000n).toString();
}

function attributesOf(attributes: Readonly<Record<string, SpanAttributeValue | undefined>>) {
  const out: { key: string; value: AnyValue }[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) out.push({ key, value: anyValueOf(value) });
  }
  return out;
}

function anyValueOf(value: SpanAttributeValue): AnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
}
