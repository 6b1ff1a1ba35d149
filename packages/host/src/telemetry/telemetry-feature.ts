import type { MeshConfig } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { EGRESS_DECIDED } from '../egress/index.js';
import { type FeatureContext, type HostFeature, resolveSecret, serviceKey } from '../features/index.js';
import { LANE_ITEM_CHANGED, LANE_TOOL_CALLED, LANES } from '../lanes/index.js';
import { LLM_CALL_SETTLED } from '../llm/index.js';
import { AGENT_REGISTRY } from '../registry/index.js';
import { callTraceOf } from '../server/index.js';
import { WORKFLOW_STEP_CHANGED } from '../workflows/index.js';
import { SpanExporter } from './span-exporter.js';
import { SpanRecorder } from './span-recorder.js';
import { TelemetryMetrics } from './telemetry-metrics.js';

/** What other parts (status, tests, the bench) read of telemetry. */
export interface Telemetry {
  readonly metrics: TelemetryMetrics;
  /** The OTLP exporter; undefined when `telemetry.otlp_endpoint` is not set. */
  readonly exporter: SpanExporter | undefined;
}

export const TELEMETRY = serviceKey<Telemetry>('telemetry');

/**
 * Telemetry: Prometheus metrics on `GET /metrics` (operator token), and, when
 * `telemetry.otlp_endpoint` is set, OpenTelemetry spans with the GenAI conventions exported over
 * OTLP/HTTP. Everything comes from facts on the host's bus (lanes, LLM calls, tools, egress,
 * workflow steps) and from the calls agents make with a trace; the agents send nothing but the
 * `traceparent` the host gave their turn (they cannot reach a collector: their egress is locked).
 */
export function telemetryFeature(options: { version: string }): HostFeature {
  return {
    name: 'telemetry',
    needs: [LANES, AGENT_REGISTRY],
    provides: [TELEMETRY],
    build(context) {
      const lanes = context.need(LANES);
      const registry = context.need(AGENT_REGISTRY);
      const exporter = createExporter(context, options.version);
      const metrics = new TelemetryMetrics({
        agents: () => Object.keys(context.config.agents),
        queued: (agent) => lanes.queued(agent),
        restarts: (agent) => registry.get(agent)?.restarts ?? 0,
        exporter: () => exporter?.stats(),
      });
      context.provide(TELEMETRY, { metrics, exporter });
      context.events.on(LLM_CALL_SETTLED, (call) => metrics.llmCall(call));
      context.events.on(EGRESS_DECIDED, (decision) => {
        if (!decision.allowed) metrics.egressRefused(decision.agent);
      });
      const spans = exporter
        ? new SpanRecorder(
            (span) => exporter.add(span),
            () => context.clock.now(),
          )
        : undefined;
      if (spans) {
        context.events.on(LANE_ITEM_CHANGED, ({ item, phase }) => spans.laneChanged(item, phase));
        context.events.on(LANE_TOOL_CALLED, ({ item, event }) => spans.toolCalled(item, event));
        context.events.on(LLM_CALL_SETTLED, (call) => spans.llmCall(call));
        context.events.on(EGRESS_DECIDED, (decision) => {
          if (decision.traceId) spans.egressDecided({ ...decision, traceId: decision.traceId });
        });
        context.events.on(WORKFLOW_STEP_CHANGED, (step) => spans.workflowStep(step));
      }
      return {
        routes(app) {
          registerMetricsRoute(app, metrics);
          if (spans) recordMeshCalls(app, spans);
        },
        start() {
          exporter?.start();
        },
        async stop() {
          await exporter?.stop();
        },
      };
    },
  };
}

/** The exporter of `telemetry:`, or undefined when no endpoint is set. */
function createExporter(context: FeatureContext, version: string): SpanExporter | undefined {
  const settings = context.config.telemetry;
  if (!settings.otlp_endpoint) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, reference] of Object.entries(settings.headers))
    headers[name] = resolveSecret(context, reference);
  return new SpanExporter({
    url: tracesUrl(settings.otlp_endpoint),
    headers,
    maxQueueSpans: settings.max_queue_spans,
    maxBatchSpans: settings.max_batch_spans,
    exportIntervalMs: settings.export_interval_ms,
    exportTimeoutMs: settings.export_timeout_ms,
    resource: resourceOf(context.config, version),
    scope: { name: '@openlegion/host', version },
    clock: context.clock,
    logger: context.logger,
    warn: (message) => context.warn(message),
  });
}

/** OTLP/HTTP's rule for a base endpoint: the signal's path is appended, unless it is there already. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}

function resourceOf(config: MeshConfig, version: string): Record<string, string> {
  return {
    'service.name': config.telemetry.service_name,
    'service.version': version,
    'service.namespace': config.mesh.name,
  };
}

function registerMetricsRoute(app: FastifyInstance, metrics: TelemetryMetrics): void {
  // The operator's token, always: process-runtime agents reach the host on loopback too.
  app.get('/metrics', { config: { auth: 'operator' } }, async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}

/**
 * A span for each mesh call made under a trace by a caller that proved who it is (as the traces
 * feature records hops): named by the route pattern, never the raw URL. LLM calls have spans of
 * their own (`chat <model>`).
 */
function recordMeshCalls(app: FastifyInstance, spans: SpanRecorder): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (request.caller === undefined || route === undefined || route.startsWith('/v1/')) return;
    const trace = callTraceOf(request.headers);
    if (!trace) return;
    const endMs = Date.now();
    spans.meshCall({
      agent: request.agent,
      method: request.method,
      route,
      status: reply.statusCode,
      startMs: endMs - reply.elapsedTime,
      endMs,
      trace,
    });
  });
}
