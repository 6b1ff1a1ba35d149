import { spansOfExport } from '@openlegion/testkit';
import { describe, expect, it } from 'vitest';
import type { LaneItem } from '../lanes/index.js';
import { otelTraceIdOf, spanIdOf, turnSpanIdOf } from '../server/index.js';
import type { StepRecord } from '../workflows/index.js';
import { otlpTraceRequest } from './otlp-json.js';
import { SpanRecorder } from './span-recorder.js';
import type { TelemetrySpan } from './telemetry-span.js';

function laneItem(fields: Partial<LaneItem> = {}): LaneItem {
  return {
    id: 7,
    agent: 'a',
    kind: 'chat',
    mode: 'followup',
    conversationId: 'default',
    message: 'hi',
    source: 'cli',
    sourceRef: null,
    idempotencyKey: 'k',
    traceId: 'trace-1',
    state: 'queued',
    notBefore: 0,
    attempts: 0,
    resultText: null,
    errorCode: null,
    errorMessage: null,
    createdAt: 1_000,
    startedAt: null,
    finishedAt: null,
    deliveredAt: null,
    ...fields,
  };
}

function recorder() {
  const spans: TelemetrySpan[] = [];
  let now = 1_000;
  const spanRecorder = new SpanRecorder(
    (span) => spans.push(span),
    () => now,
  );
  const at = (ms: number) => {
    now = ms;
  };
  return { spans, spanRecorder, at };
}

describe('SpanRecorder', () => {
  it('writes a turn under its lane, and a tool call under the turn, in the trace of the trace id', () => {
    const { spans, spanRecorder, at } = recorder();
    const running = laneItem({ state: 'running', attempts: 1, startedAt: 1_010 });
    spanRecorder.laneChanged(laneItem(), 'queued');
    at(1_010);
    spanRecorder.laneChanged(running, 'running');
    at(1_020);
    spanRecorder.toolCalled(running, { type: 'tool_start', id: 'call-1', name: 'publish' });
    at(1_030);
    spanRecorder.toolCalled(running, { type: 'tool_result', id: 'call-1', is_error: true });
    at(1_050);
    spanRecorder.laneChanged({ ...running, state: 'done', finishedAt: 1_050 }, 'settled');
    const trace = otelTraceIdOf('trace-1');
    expect(
      spans.map(({ name, traceId, spanId, parentSpanId, startMs, endMs, error }) => ({
        name,
        traceId,
        spanId,
        parentSpanId,
        startMs,
        endMs,
        error,
      })),
    ).toEqual([
      {
        name: 'execute_tool publish',
        traceId: trace,
        spanId: expect.any(String),
        parentSpanId: turnSpanIdOf({ id: 7, attempts: 1 }),
        startMs: 1_020,
        endMs: 1_030,
        error: 'the tool reported an error',
      },
      {
        name: 'invoke_agent a',
        traceId: trace,
        spanId: turnSpanIdOf({ id: 7, attempts: 1 }),
        parentSpanId: spanIdOf('lane:7'),
        startMs: 1_010,
        endMs: 1_050,
        error: undefined,
      },
      {
        name: 'lane a',
        traceId: trace,
        spanId: spanIdOf('lane:7'),
        parentSpanId: undefined,
        startMs: 1_000,
        endMs: 1_050,
        error: undefined,
      },
    ]);
  });

  it('ends a retried turn as failed, and hangs a workflow step’s lane under the step', () => {
    const { spans, spanRecorder } = recorder();
    const item = laneItem({ source: 'workflow', conversationId: 'workflow:run-1:draft:-1' });
    spanRecorder.laneChanged(item, 'queued');
    spanRecorder.laneChanged({ ...item, attempts: 1, state: 'running' }, 'running');
    spanRecorder.laneChanged({ ...item, attempts: 2, state: 'running' }, 'running');
    spanRecorder.laneChanged({ ...item, attempts: 2, state: 'done', finishedAt: 1_100 }, 'settled');
    const step = { runId: 'run-1', stepId: 'draft', item: -1, state: 'done', startedAt: 1_000 } as StepRecord;
    spanRecorder.workflowStep({ ...step, waitingSince: null, finishedAt: 1_200, attempt: 1 });
    expect(spans.map((span) => [span.name, span.error])).toEqual([
      ['invoke_agent a', 'retried'],
      ['invoke_agent a', undefined],
      ['lane a', undefined],
      ['workflow.step draft', undefined],
    ]);
    expect(spans[2]?.parentSpanId).toBe(spans[3]?.spanId);
  });

  it('forgets tool calls an agent starts and never ends, past its bound', () => {
    const { spans, spanRecorder } = recorder();
    const running = laneItem({ state: 'running', attempts: 1 });
    for (let i = 0; i < 5_000; i++)
      spanRecorder.toolCalled(running, { type: 'tool_start', id: `c-${i}`, name: 'x'.repeat(500) });
    spanRecorder.toolCalled(running, { type: 'tool_result', id: 'c-4999', is_error: false });
    spanRecorder.toolCalled(running, { type: 'tool_result', id: 'c-0', is_error: false });
    expect(spans.map((span) => span.name)).toEqual([`execute_tool ${'x'.repeat(100)}`]);
  });
});

describe('otlpTraceRequest', () => {
  it('writes OTLP JSON a collector reads back: hex ids, nanosecond strings, typed attributes, error status', () => {
    const body = otlpTraceRequest(
      [
        {
          traceId: otelTraceIdOf('t'),
          spanId: spanIdOf('s'),
          parentSpanId: undefined,
          name: 'chat m',
          kind: 3,
          startMs: 1_700_000_000_123.456,
          endMs: 1_700_000_000_124,
          attributes: { s: 'x', i: 3, d: 0.5, b: true, list: ['stop'], gone: undefined },
          error: 'LLM_PROVIDER_UNAVAILABLE',
        },
      ],
      { 'service.name': 'openlegion' },
      { name: '@openlegion/host', version: '1' },
    );
    expect(JSON.parse(body).resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano).toBe(
      '1700000000123456000',
    );
    expect(spansOfExport(JSON.parse(body))).toEqual([
      expect.objectContaining({
        parentSpanId: undefined,
        startTimeUnixNano: 1_700_000_000_123_456_000n,
        endTimeUnixNano: 1_700_000_000_124_000_000n,
        attributes: { s: 'x', i: 3, d: 0.5, b: true, list: ['stop'] },
        status: { code: 2, message: 'LLM_PROVIDER_UNAVAILABLE' },
        resource: { 'service.name': 'openlegion' },
        scope: '@openlegion/host',
      }),
    ]);
  });
});
