import { describe, expect, it } from 'vitest';
import { parseTraceparent } from './agent-api.js';
import { meshConfigSchema } from './mesh-config.js';

const minimal = { llm: { providers: { openai: {} } }, agents: { a: {} } };

function issues(telemetry: unknown) {
  const result = meshConfigSchema.safeParse({ ...minimal, telemetry });
  return result.success ? [] : result.error.issues.map(({ path, message }) => ({ path, message }));
}

describe('mesh.yaml telemetry:', () => {
  it('exports nothing by default, with the OpenTelemetry SDKs queue and batch sizes', () => {
    expect(meshConfigSchema.parse(minimal).telemetry).toEqual({
      headers: {},
      service_name: 'openlegion',
      max_queue_spans: 2048,
      max_batch_spans: 512,
      export_interval_ms: 1_000,
      export_timeout_ms: 5_000,
    });
  });

  it('takes an http(s) collector and headers from the vault', () => {
    expect(
      issues({ otlp_endpoint: 'http://127.0.0.1:4318', headers: { 'x-api-key': 'vault:OTLP_KEY' } }),
    ).toEqual([]);
  });

  it('refuses an endpoint that is not an http(s) URL', () => {
    expect(issues({ otlp_endpoint: 'grpc://collector:4317' })).toEqual([
      { path: ['telemetry', 'otlp_endpoint'], message: 'otlp_endpoint must be an http(s) URL' },
    ]);
  });

  it('refuses a header value written in mesh.yaml instead of a vault reference', () => {
    expect(issues({ headers: { authorization: 'Bearer abc' } })).toEqual([
      {
        path: ['telemetry', 'headers', 'authorization'],
        message: 'use a reference like vault:OPENAI_API_KEY, never the key itself',
      },
    ]);
  });

  it('refuses an unknown field', () => {
    expect(issues({ endpoint: 'http://x' })).toEqual([
      { path: ['telemetry'], message: 'Unrecognized key: "endpoint"' },
    ]);
  });
});

describe('parseTraceparent', () => {
  it('reads a W3C traceparent, and refuses other versions, upper case and all-zero ids', () => {
    expect(parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
    });
    for (const bad of [
      '01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331',
      undefined,
      ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
    ])
      expect(parseTraceparent(bad)).toBeUndefined();
  });
});
