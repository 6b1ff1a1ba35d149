import type { AddressInfo } from 'node:net';
import type { MeshConfigInput } from '@openlegion/protocol';
import {
  type FakeLlm,
  type FakeOtlpCollector,
  startFakeLlm,
  startFakeOtlpCollector,
} from '@openlegion/testkit';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FeatureTestHost, startFeatureTestHost } from '../../test/feature-test-host.js';
import { costsFeature } from '../costs/index.js';
import { lanesFeature } from '../lanes/index.js';
import { llmFeature } from '../llm/index.js';
import { registryFeature } from '../registry/index.js';
import { environmentSecrets } from '../secrets/index.js';
import { otelTraceIdOf } from '../server/index.js';
import { TELEMETRY, telemetryFeature } from './index.js';

const config = (telemetry: MeshConfigInput['telemetry']): MeshConfigInput => ({
  llm: {
    default_model: 'openai/gpt-test',
    prices: { 'openai/gpt-test': { input: 1, output: 2, max_output_tokens: 1_000 } },
    providers: { openai: { api_key: 'env:OPENAI_API_KEY' } },
  },
  agents: { rich: {}, other: {} },
  ...(telemetry ? { telemetry } : {}),
});

let fakeLlm: FakeLlm;
const hosts: FeatureTestHost[] = [];
const collectors: FakeOtlpCollector[] = [];

beforeAll(async () => {
  fakeLlm = await startFakeLlm({
    script: {
      rules: [
        {
          match: { last_message: 'refuse me' },
          fail: { status: 400, message: 'bad request', code: 'invalid_request' },
        },
      ],
      default: { text: 'four words of answer', usage: { prompt_tokens: 1_000, completion_tokens: 500 } },
    },
  });
});
afterAll(async () => {
  await fakeLlm.close();
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.stop()));
  await Promise.all(collectors.splice(0).map((collector) => collector.close()));
});

async function collector(): Promise<FakeOtlpCollector> {
  const started = await startFakeOtlpCollector();
  collectors.push(started);
  return started;
}

async function start(
  telemetry?: MeshConfigInput['telemetry'],
): Promise<{ host: FeatureTestHost; url: string }> {
  const host = await startFeatureTestHost(
    [
      registryFeature(),
      costsFeature(),
      llmFeature({ baseUrlOverrides: { openai: fakeLlm.url }, meterCosts: true }),
      lanesFeature(),
      telemetryFeature({ version: '9.9.9-test' }),
    ],
    config(telemetry),
    { secrets: environmentSecrets({ OPENAI_API_KEY: 'sk-test', OTLP_KEY: 'otlp-secret' }) },
  );
  hosts.push(host);
  await host.app.listen({ host: '127.0.0.1', port: 0 });
  return { host, url: `http://127.0.0.1:${(host.app.server.address() as AddressInfo).port}` };
}

const chat = (
  url: string,
  auth: { authorization: string },
  headers: Record<string, string> = {},
  stream = true,
  message = 'hi',
) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      model: 'openai/gpt-test',
      messages: [{ role: 'user', content: message }],
      stream,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
    }),
  }).then(async (response) => ({ status: response.status, text: await response.text() }));

async function scrapeText(url: string, host: FeatureTestHost): Promise<string> {
  const response = await fetch(`${url}/metrics`, { headers: host.operatorAuth });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

/** The scrape through a Prometheus text parser (it throws on a line that is not the format). */
const scrape = async (url: string, host: FeatureTestHost) =>
  parsePrometheusTextFormat(await scrapeText(url, host));

const dropped = async (url: string, host: FeatureTestHost, reason: string) =>
  Number(
    (await scrape(url, host))
      .find((family) => family.name === 'openlegion_telemetry_spans_dropped_total')
      ?.metrics.find((sample) => sample.labels?.reason === reason)?.value ?? 'NaN',
  );

describe('GET /metrics', () => {
  it('is refused without the operator token, and with an agent token', async () => {
    const { host, url } = await start();
    const none = await fetch(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('AUTH_MISSING');
    const agent = await fetch(`${url}/metrics`, { headers: host.agentAuth('rich') });
    expect(agent.status).toBe(403);
    expect(((await agent.json()) as { error: { code: string } }).error.code).toBe('AUTH_FORBIDDEN');
  });

  it('parses as Prometheus text with LLM latency, tokens and cost by model and agent, and each lane', async () => {
    const { host, url } = await start();
    expect((await chat(url, host.agentAuth('rich'))).status).toBe(200);
    expect((await chat(url, host.agentAuth('rich'), {}, false)).status).toBe(200);
    const text = await scrapeText(url, host);
    const families = parsePrometheusTextFormat(text);
    const family = (name: string) => families.find((found) => found.name === name);
    const latency = family('openlegion_llm_request_duration_seconds');
    expect(latency?.type).toBe('HISTOGRAM');
    expect(latency?.metrics[0]?.buckets?.['+Inf']).toBe('2');
    // The parser folds a histogram's label sets together; the labelled count is read from the text.
    expect(text).toContain(
      'openlegion_llm_request_duration_seconds_count{model="openai/gpt-test",agent="rich",outcome="ok"} 2',
    );
    expect(family('openlegion_llm_tokens_total')?.metrics).toEqual([
      { labels: { model: 'openai/gpt-test', agent: 'rich', type: 'input' }, value: '2000' },
      { labels: { model: 'openai/gpt-test', agent: 'rich', type: 'output' }, value: '1000' },
    ]);
    // 2 × (1,000 × $1/M + 500 × $2/M) = $0.004.
    expect(Number(family('openlegion_llm_cost_usd_total')?.metrics[0]?.value)).toBeCloseTo(0.004, 9);
    expect(family('openlegion_lane_depth')?.metrics).toEqual([
      { labels: { agent: 'rich' }, value: '0' },
      { labels: { agent: 'other' }, value: '0' },
    ]);
    expect(family('openlegion_agent_restarts_total')?.type).toBe('COUNTER');
    expect(family('openlegion_egress_refusals_total')?.type).toBe('COUNTER');
    // No endpoint: nothing is exported, nothing dropped.
    expect(family('openlegion_telemetry_spans_dropped_total')?.metrics.map((sample) => sample.value)).toEqual(
      ['0', '0', '0'],
    );
  });
});

describe('telemetry at start', () => {
  it('fails the start with CONFIG_INVALID naming a collector header that is not in the vault', async () => {
    await expect(
      start({ otlp_endpoint: 'http://127.0.0.1:4318', headers: { 'x-api-key': 'vault:MISSING_OTLP_KEY' } }),
    ).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'vault:MISSING_OTLP_KEY is not set: export MISSING_OTLP_KEY in the host environment',
    });
  });
});

describe('OTLP export of LLM spans', () => {
  it("sends a chat's span with the GenAI attributes, under the caller's traceparent, and tells the provider its own", async () => {
    const otlp = await collector();
    const { host, url } = await start({
      otlp_endpoint: otlp.baseUrl,
      headers: { 'x-api-key': 'vault:OTLP_KEY' },
    });
    const traceId = otelTraceIdOf('trace-llm-1');
    const callerSpan = 'aaaaaaaaaaaaaaaa';
    fakeLlm.reset();
    const answer = await chat(url, host.agentAuth('rich'), {
      'x-trace-id': 'trace-llm-1',
      traceparent: `00-${traceId}-${callerSpan}-01`,
    });
    expect(answer.status).toBe(200);
    await host.service(TELEMETRY).exporter?.flush();
    const [span] = await otlp.waitForSpans(1);
    expect(span).toMatchObject({
      traceId,
      parentSpanId: callerSpan,
      name: 'chat gpt-test',
      kind: 3,
      status: { code: 0 },
      resource: { 'service.name': 'openlegion', 'service.version': '9.9.9-test' },
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.system': 'openai',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.response.model': expect.any(String),
        'gen_ai.usage.input_tokens': 1_000,
        'gen_ai.usage.output_tokens': 500,
        'gen_ai.response.finish_reasons': ['stop'],
        'openlegion.agent': 'rich',
        'openlegion.model': 'openai/gpt-test',
        'openlegion.trace_id': 'trace-llm-1',
      },
    });
    expect(span?.endTimeUnixNano).toBeGreaterThanOrEqual(span?.startTimeUnixNano ?? 0n);
    // The provider hears the span of the call, the collector the key from the vault.
    expect(fakeLlm.requests[0]?.headers.traceparent).toBe(`00-${traceId}-${span?.spanId}-01`);
    expect(otlp.requests[0]?.headers['x-api-key']).toBe('otlp-secret');
  });

  it("does not hang a call under a traceparent of another trace than the call's", async () => {
    const otlp = await collector();
    const { host, url } = await start({ otlp_endpoint: otlp.baseUrl });
    const elsewhere = otelTraceIdOf('someone-elses-trace');
    await chat(url, host.agentAuth('rich'), {
      'x-trace-id': 'trace-llm-2',
      traceparent: `00-${elsewhere}-bbbbbbbbbbbbbbbb-01`,
    });
    await host.service(TELEMETRY).exporter?.flush();
    const [span] = await otlp.waitForSpans(1);
    expect(span).toMatchObject({ traceId: otelTraceIdOf('trace-llm-2'), parentSpanId: undefined });
  });

  it('marks a failed call as an error span with its code, and counts it under outcome="error"', async () => {
    const otlp = await collector();
    const { host, url } = await start({ otlp_endpoint: otlp.baseUrl });
    const refused = await chat(
      url,
      host.agentAuth('rich'),
      { 'x-trace-id': 'trace-llm-3' },
      true,
      'refuse me',
    );
    expect(refused.status).toBe(400);
    await host.service(TELEMETRY).exporter?.flush();
    const [span] = await otlp.waitForSpans(1);
    expect(span?.status.code).toBe(2);
    expect(span?.attributes['error.type']).toBe('LLM_REQUEST_REJECTED');
    expect(await scrapeText(url, host)).toContain(
      'openlegion_llm_request_duration_seconds_count{model="openai/gpt-test",agent="rich",outcome="error"} 1',
    );
  });
});

describe('a collector that is down or slow', () => {
  it('drops the spans it does not take, counts them, and tells the operator once', async () => {
    const otlp = await collector();
    const downUrl = otlp.baseUrl;
    await otlp.close();
    const { host, url } = await start({ otlp_endpoint: downUrl, export_timeout_ms: 1_000 });
    for (let i = 0; i < 3; i++)
      expect((await chat(url, host.agentAuth('rich'), { 'x-trace-id': `down-${i}` })).status).toBe(200);
    await host.service(TELEMETRY).exporter?.flush();
    expect(await dropped(url, host, 'export_failed')).toBe(3);
    await chat(url, host.agentAuth('rich'), { 'x-trace-id': 'down-again' });
    await host.service(TELEMETRY).exporter?.flush();
    expect(await dropped(url, host, 'export_failed')).toBe(4);
    expect(host.warnings.filter((warning) => warning.startsWith('telemetry:'))).toEqual([
      expect.stringMatching(
        /^telemetry: the OTLP collector at http:\/\/127\.0\.0\.1:\d+\/v1\/traces did not take 3 spans \(.*\); spans are dropped and counted/,
      ),
    ]);
  });

  it('answers every call while an export hangs, drops what overflows the queue, and cuts the export at its timeout', async () => {
    const otlp = await collector();
    const { host, url } = await start({
      otlp_endpoint: otlp.baseUrl,
      max_queue_spans: 16,
      max_batch_spans: 4,
      export_timeout_ms: 3_000,
    });
    otlp.setFault('hang');
    await chat(url, host.agentAuth('rich'), { 'x-trace-id': 'slow-0' });
    const started = Date.now();
    const exporting = host.service(TELEMETRY).exporter?.flush();
    // The export is in flight and unanswered: calls go on, unaffected.
    await expect.poll(() => otlp.requests.length).toBe(1);
    for (let i = 1; i <= 30; i++)
      expect((await chat(url, host.agentAuth('rich'), { 'x-trace-id': `slow-${i}` })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(otlp.requests).toHaveLength(1);
    expect(await dropped(url, host, 'queue_full')).toBe(30 - 16);
    // The collector comes back: the hung batch (one span) is dropped at the timeout, the queue goes out.
    otlp.setFault('none');
    await exporting;
    expect(await dropped(url, host, 'export_failed')).toBe(1);
    expect(otlp.spans).toHaveLength(16);
    expect(host.warnings.some((warning) => warning.includes('no answer within 3000 ms'))).toBe(true);
  });
});
