/** A span attribute's value: OTLP's scalar kinds and string arrays (finish reasons). */
export type SpanAttributeValue = string | number | boolean | readonly string[];

/** OTLP's span kinds. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

/**
 * One finished span, as telemetry builds it from the host's facts: ids in W3C hex, times in
 * wall-clock ms (sub-millisecond allowed). Spans are written once, whole, when their work ended.
 */
export interface TelemetrySpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  startMs: number;
  endMs: number;
  attributes: Readonly<Record<string, SpanAttributeValue | undefined>>;
  /** Set when the work failed: OTLP status ERROR with this message. */
  error?: string | undefined;
}
