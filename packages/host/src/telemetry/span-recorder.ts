import { FINAL_STEP_STATES } from '@openlegion/protocol';
import type { EgressDecision } from '../egress/index.js';
import type { LaneItem, LaneItemPhase } from '../lanes/index.js';
import type { LlmCallSettled } from '../llm/index.js';
import { type CallTrace, newSpanId, otelTraceIdOf, spanIdOf, turnSpanIdOf } from '../server/index.js';
import type { StepRecord } from '../workflows/index.js';
import { SPAN_KIND, type TelemetrySpan } from './telemetry-span.js';

/** Tool calls open at once across the fleet; an agent that starts tools it never ends cannot grow this. */
const MAX_OPEN_TOOLS = 1_000;
/** Workflow steps whose lane trace is remembered until they end. */
const MAX_OPEN_STEPS = 1_000;
/** What an agent names (tools, call ids) is clipped before it leaves the host. */
const MAX_NAME_CHARS = 100;

interface RunningTurn {
  item: number;
  attempts: number;
  traceId: string;
  startedAt: number;
}

/** A mesh call an agent made, as the host answered it. */
export interface MeshCallFacts {
  agent: string | undefined;
  method: string;
  route: string;
  status: number;
  startMs: number;
  endMs: number;
  trace: CallTrace;
}

/**
 * Turns the host's facts (lane items, tool events, LLM calls, mesh calls, egress decisions,
 * workflow steps) into finished spans of one trace per project trace id, each linked to its
 * parent: workflow step → lane → `invoke_agent` turn → `chat`/`execute_tool`/mesh call/egress. Span
 * ids follow from what the span is (see `spanIdOf`), so a parent's id is known before it is written.
 */
export class SpanRecorder {
  readonly #emit: (span: TelemetrySpan) => void;
  readonly #now: () => number;
  readonly #running = new Map<string, RunningTurn>();
  readonly #tools = new Map<string, { name: string; startMs: number }>();
  readonly #stepTraces = new Map<string, string>();

  constructor(emit: (span: TelemetrySpan) => void, now: () => number) {
    this.#emit = emit;
    this.#now = now;
  }

  laneChanged(item: LaneItem, phase: LaneItemPhase): void {
    if (phase === 'queued') {
      if (item.source === 'workflow' && item.conversationId.startsWith('workflow:')) {
        if (this.#stepTraces.size >= MAX_OPEN_STEPS) this.#stepTraces.clear();
        this.#stepTraces.set(item.conversationId, item.traceId);
      }
      return;
    }
    if (phase === 'running') {
      const before = this.#running.get(item.agent);
      // A turn retried (the agent restarted): the earlier try's span ends now, failed.
      if (before) this.#turnSpan(item, before, 'retried');
      this.#running.set(item.agent, {
        item: item.id,
        attempts: item.attempts,
        traceId: item.traceId,
        startedAt: this.#now(),
      });
      return;
    }
    const turn = this.#running.get(item.agent);
    if (turn && turn.item === item.id) {
      this.#running.delete(item.agent);
      this.#turnSpan(item, turn, item.errorCode ?? undefined);
    }
    for (const key of this.#tools.keys()) if (key.startsWith(`${item.id}:`)) this.#tools.delete(key);
    this.#emit({
      traceId: otelTraceIdOf(item.traceId),
      spanId: spanIdOf(`lane:${item.id}`),
      parentSpanId: item.source === 'workflow' ? stepSpanIdOf(item.conversationId) : undefined,
      name: `lane ${item.agent}`,
      kind: SPAN_KIND.internal,
      startMs: item.createdAt,
      endMs: item.finishedAt ?? this.#now(),
      attributes: {
        'gen_ai.agent.name': item.agent,
        'openlegion.trace_id': item.traceId,
        'openlegion.lane.item': item.id,
        'openlegion.lane.source': item.source,
        'openlegion.lane.kind': item.kind,
        'openlegion.lane.mode': item.mode,
        'openlegion.lane.state': item.state,
        'openlegion.lane.attempts': item.attempts,
        'openlegion.lane.wait_ms': item.startedAt === null ? undefined : item.startedAt - item.createdAt,
        'error.type': item.errorCode ?? undefined,
      },
      error: item.state === 'failed' ? (item.errorMessage ?? item.errorCode ?? 'failed') : undefined,
    });
  }

  toolCalled(
    item: LaneItem,
    event:
      | { type: 'tool_start'; id: string; name: string }
      | { type: 'tool_result'; id: string; is_error: boolean },
  ): void {
    const callId = event.id.slice(0, MAX_NAME_CHARS);
    const key = `${item.id}:${item.attempts}:${callId}`;
    if (event.type === 'tool_start') {
      if (this.#tools.size >= MAX_OPEN_TOOLS) return;
      this.#tools.set(key, { name: event.name.slice(0, MAX_NAME_CHARS), startMs: this.#now() });
      return;
    }
    const started = this.#tools.get(key);
    if (!started) return;
    this.#tools.delete(key);
    this.#emit({
      traceId: otelTraceIdOf(item.traceId),
      spanId: spanIdOf(`tool:${key}`),
      parentSpanId: turnSpanIdOf(item),
      name: `execute_tool ${started.name}`,
      kind: SPAN_KIND.internal,
      startMs: started.startMs,
      endMs: this.#now(),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': started.name,
        'gen_ai.tool.call.id': callId,
        'gen_ai.agent.name': item.agent,
        'openlegion.trace_id': item.traceId,
        'error.type': event.is_error ? 'tool_error' : undefined,
      },
      error: event.is_error ? 'the tool reported an error' : undefined,
    });
  }

  llmCall(call: LlmCallSettled): void {
    const operation = call.kind === 'chat' ? 'chat' : 'embeddings';
    this.#emit({
      traceId: call.otelTraceId,
      spanId: call.spanId,
      parentSpanId: this.#parentOf(call.agent, call.trace),
      name: `${operation} ${call.upstreamModel}`,
      kind: SPAN_KIND.client,
      startMs: call.startedAt,
      endMs: call.endedAt,
      attributes: {
        'gen_ai.operation.name': operation,
        'gen_ai.provider.name': call.provider,
        // The name before the conventions renamed it; many backends still read only this one.
        'gen_ai.system': call.provider,
        'gen_ai.request.model': call.upstreamModel,
        'gen_ai.response.model': call.responseModel,
        'gen_ai.usage.input_tokens': call.usage?.input,
        'gen_ai.usage.output_tokens': call.usage?.output,
        'gen_ai.response.finish_reasons': call.finishReasons.length > 0 ? call.finishReasons : undefined,
        'openlegion.agent': call.agent,
        'openlegion.model': call.model,
        'openlegion.stream': call.stream,
        'openlegion.cost_usd': call.usage?.costUsd,
        'openlegion.usage.estimated': call.usage?.estimated,
        'openlegion.trace_id': call.trace?.traceId,
        'error.type': call.errorCode,
      },
      error: call.errorCode,
    });
  }

  meshCall(call: MeshCallFacts): void {
    this.#emit({
      traceId: call.trace.otelTraceId,
      spanId: newSpanId(),
      parentSpanId:
        call.agent === undefined ? call.trace.parentSpanId : this.#parentOf(call.agent, call.trace),
      name: `${call.method} ${call.route}`,
      kind: SPAN_KIND.server,
      startMs: call.startMs,
      endMs: call.endMs,
      attributes: {
        'http.request.method': call.method,
        'http.route': call.route,
        'http.response.status_code': call.status,
        'openlegion.agent': call.agent,
        'openlegion.trace_id': call.trace.traceId,
        'error.type': call.status >= 500 ? String(call.status) : undefined,
      },
      error: call.status >= 500 ? `answered ${call.status}` : undefined,
    });
  }

  egressDecided(decision: EgressDecision & { traceId: string }): void {
    const now = this.#now();
    const turn = this.#running.get(decision.agent);
    this.#emit({
      traceId: otelTraceIdOf(decision.traceId),
      spanId: newSpanId(),
      parentSpanId:
        turn && turn.traceId === decision.traceId
          ? turnSpanIdOf({ id: turn.item, attempts: turn.attempts })
          : undefined,
      name: `egress ${decision.allowed ? 'allowed' : 'refused'}`,
      kind: SPAN_KIND.client,
      startMs: now,
      endMs: now,
      attributes: {
        'server.address': decision.host,
        'server.port': decision.port,
        'openlegion.agent': decision.agent,
        'openlegion.egress.reason': decision.reason,
        'openlegion.trace_id': decision.traceId,
      },
      error: decision.allowed ? undefined : (decision.reason ?? 'refused'),
    });
  }

  workflowStep(step: StepRecord): void {
    if (!FINAL_STEP_STATES.includes(step.state) || step.startedAt === null) return;
    const conversation = `workflow:${step.runId}:${step.stepId}:${step.item}`;
    const traceId = this.#stepTraces.get(conversation);
    if (traceId === undefined) return;
    this.#stepTraces.delete(conversation);
    this.#emit({
      traceId: otelTraceIdOf(traceId),
      spanId: stepSpanIdOf(conversation),
      parentSpanId: undefined,
      name: `workflow.step ${step.stepId}`,
      kind: SPAN_KIND.internal,
      startMs: step.waitingSince ?? step.startedAt,
      endMs: step.finishedAt ?? this.#now(),
      attributes: {
        'openlegion.workflow.run': step.runId,
        'openlegion.workflow.step': step.stepId,
        'openlegion.workflow.item': step.item,
        'openlegion.workflow.state': step.state,
        'openlegion.workflow.attempts': step.attempt,
        'gen_ai.agent.name': step.agent ?? undefined,
        'openlegion.trace_id': traceId,
        'error.type': step.errorCode ?? undefined,
      },
      error: step.state === 'failed' ? (step.errorMessage ?? step.errorCode ?? 'failed') : undefined,
    });
  }

  /** The turn span of `trace` (the caller's traceparent, else its agent's running turn of that trace). */
  #parentOf(agent: string, trace: CallTrace | undefined): string | undefined {
    if (!trace) return undefined;
    if (trace.parentSpanId) return trace.parentSpanId;
    const turn = this.#running.get(agent);
    return turn && turn.traceId === trace.traceId
      ? turnSpanIdOf({ id: turn.item, attempts: turn.attempts })
      : undefined;
  }

  #turnSpan(item: LaneItem, turn: RunningTurn, errorCode: string | undefined): void {
    this.#emit({
      traceId: otelTraceIdOf(turn.traceId),
      spanId: turnSpanIdOf({ id: turn.item, attempts: turn.attempts }),
      parentSpanId: spanIdOf(`lane:${turn.item}`),
      name: `invoke_agent ${item.agent}`,
      kind: SPAN_KIND.client,
      startMs: turn.startedAt,
      endMs: this.#now(),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': item.agent,
        'gen_ai.conversation.id': item.conversationId.slice(0, 200),
        'openlegion.lane.item': turn.item,
        'openlegion.lane.attempt': turn.attempts,
        'openlegion.trace_id': turn.traceId,
        'error.type': errorCode,
      },
      error: errorCode,
    });
  }
}

/** A workflow step's span, named by the conversation its lane items run in. */
function stepSpanIdOf(conversationId: string): string {
  return spanIdOf(`step:${conversationId}`);
}
