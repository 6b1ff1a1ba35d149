import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LlmCallSettled } from '../llm/index.js';
import type { SpanExporterStats } from './span-exporter.js';

/**
 * LLM latency buckets (seconds): a cached answer in tens of ms up to a long stream of minutes;
 * Prometheus' default buckets stop at 10 s, shorter than many completions.
 */
const LLM_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];

/** What the metrics read at each scrape: the lanes, the agents, the exporter. */
export interface MetricsSources {
  /** The agents of the mesh (labels are only ever these, the operator and the configured models). */
  agents(): readonly string[];
  queued(agent: string): number;
  restarts(agent: string): number;
  exporter(): SpanExporterStats | undefined;
}

/**
 * The host's metrics in Prometheus text (`GET /metrics`), in a registry of its own (two hosts in
 * one process, as in tests, never share counters). Label values are bounded: agents and models come
 * from mesh.yaml (a call to any other model is refused before it is counted).
 */
export class TelemetryMetrics {
  readonly registry = new Registry();
  readonly #llmSeconds: Histogram<'model' | 'agent' | 'outcome'>;
  readonly #tokens: Counter<'model' | 'agent' | 'type'>;
  readonly #cost: Counter<'model' | 'agent'>;
  readonly #egressRefusals: Counter<'agent'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.#llmSeconds = new Histogram({
      name: 'openlegion_llm_request_duration_seconds',
      help: 'Time of each call through the LLM proxy, from request to the end of its answer.',
      labelNames: ['model', 'agent', 'outcome'],
      buckets: LLM_SECONDS_BUCKETS,
      registers,
    });
    this.#tokens = new Counter({
      name: 'openlegion_llm_tokens_total',
      help: 'Tokens of LLM calls, by model, agent and type (input, output).',
      labelNames: ['model', 'agent', 'type'],
      registers,
    });
    this.#cost = new Counter({
      name: 'openlegion_llm_cost_usd_total',
      help: 'What LLM calls cost in USD at the configured prices, by model and agent.',
      labelNames: ['model', 'agent'],
      registers,
    });
    this.#egressRefusals = new Counter({
      name: 'openlegion_egress_refusals_total',
      help: 'Connections the egress proxy refused, by agent.',
      labelNames: ['agent'],
      registers,
    });
    new Gauge({
      name: 'openlegion_lane_depth',
      help: "Items waiting in each agent's lane.",
      labelNames: ['agent'],
      registers,
      collect() {
        for (const agent of sources.agents()) this.set({ agent }, sources.queued(agent));
      },
    });
    new Counter({
      name: 'openlegion_agent_restarts_total',
      help: 'Restarts of each agent since the host started.',
      labelNames: ['agent'],
      registers,
      collect() {
        this.reset();
        for (const agent of sources.agents()) this.inc({ agent }, sources.restarts(agent));
      },
    });
    new Counter({
      name: 'openlegion_telemetry_spans_exported_total',
      help: 'Spans the OTLP collector took.',
      registers,
      collect() {
        this.reset();
        this.inc(sources.exporter()?.exported ?? 0);
      },
    });
    new Counter({
      name: 'openlegion_telemetry_spans_dropped_total',
      help: 'Spans dropped: queue_full (the collector is slower than the host), export_failed (down, slow or refusing), rejected (it said so).',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        const dropped = sources.exporter()?.dropped ?? { queue_full: 0, export_failed: 0, rejected: 0 };
        for (const [reason, count] of Object.entries(dropped)) this.inc({ reason }, count);
      },
    });
    new Gauge({
      name: 'openlegion_telemetry_spans_queued',
      help: 'Spans waiting to be sent to the OTLP collector.',
      registers,
      collect() {
        this.set(sources.exporter()?.queued ?? 0);
      },
    });
  }

  llmCall(call: LlmCallSettled): void {
    const labels = { model: call.model, agent: call.agent };
    this.#llmSeconds.observe(
      { ...labels, outcome: call.errorCode === undefined ? 'ok' : 'error' },
      Math.max(0, call.endedAt - call.startedAt) / 1_000,
    );
    if (!call.usage) return;
    this.#tokens.inc({ ...labels, type: 'input' }, call.usage.input);
    this.#tokens.inc({ ...labels, type: 'output' }, call.usage.output);
    if (call.usage.costUsd > 0) this.#cost.inc(labels, call.usage.costUsd);
  }

  egressRefused(agent: string): void {
    this.#egressRefusals.inc({ agent });
  }
}
