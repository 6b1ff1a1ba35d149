import { z } from 'zod';

/** A span as the fake collector took it: ids in hex, attributes decoded to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string | undefined };
  /** The resource's attributes (`service.name`, ...). */
  resource: Record<string, unknown>;
  scope: string;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

type AnyValue = {
  stringValue?: string | undefined;
  intValue?: string | number | undefined;
  doubleValue?: number | undefined;
  boolValue?: boolean | undefined;
  arrayValue?: { values?: AnyValue[] | undefined } | undefined;
};
const anyValue: z.ZodType<AnyValue> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    intValue: z.union([z.string().regex(/^-?\d+$/), z.number().int()]).optional(),
    doubleValue: z.number().optional(),
    boolValue: z.boolean().optional(),
    arrayValue: z.object({ values: z.array(anyValue).optional() }).optional(),
  }),
);
const keyValues = z.array(z.object({ key: z.string(), value: anyValue })).default([]);
const nanos = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]);

/** OTLP's `ExportTraceServiceRequest` in the proto3 JSON mapping (the fields this fake reads). */
const exportRequest = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: keyValues }).default({ attributes: [] }),
      scopeSpans: z.array(
        z.object({
          scope: z.object({ name: z.string().default('') }).default({ name: '' }),
          spans: z.array(
            z.object({
              traceId: z.string().regex(HEX32, 'traceId: 32 lower-case hex'),
              spanId: z.string().regex(HEX16, 'spanId: 16 lower-case hex'),
              parentSpanId: z.union([z.string().regex(HEX16), z.literal('')]).optional(),
              name: z.string(),
              kind: z.number().int().min(0).max(5).default(0),
              startTimeUnixNano: nanos,
              endTimeUnixNano: nanos,
              attributes: keyValues,
              status: z
                .object({ code: z.number().int().min(0).max(2).default(0), message: z.string().optional() })
                .default({ code: 0 }),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** The spans of one export body; throws (with zod's message) when it is not an OTLP JSON export. */
export function spansOfExport(body: unknown): ReceivedSpan[] {
  const parsed = exportRequest.parse(body);
  return parsed.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const resourceAttributes = decode(resource.attributes);
    return scopeSpans.flatMap(({ scope, spans }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: BigInt(span.startTimeUnixNano),
        endTimeUnixNano: BigInt(span.endTimeUnixNano),
        attributes: decode(span.attributes),
        status: span.status,
        resource: resourceAttributes,
        scope: scope.name,
      })),
    );
  });
}

function decode(attributes: { key: string; value: AnyValue }[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, plainValueOf(value)]));
}

function plainValueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValueOf);
  return undefined;
}
