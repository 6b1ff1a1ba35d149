import type { Clock, Timer } from '@openlegion/infra/clock';
import type { Logger } from 'pino';
import { otlpTraceRequest } from './otlp-json.js';
import type { TelemetrySpan } from './telemetry-span.js';

/** Why spans were dropped (the `reason` label of `openlegion_telemetry_spans_dropped_total`). */
export type DropReason = 'queue_full' | 'export_failed' | 'rejected';

export interface SpanExporterOptions {
  /** The collector's traces URL (`…/v1/traces`). */
  url: string;
  /** Sent with each export (the collector's API key, read from the vault). */
  headers: Readonly<Record<string, string>>;
  maxQueueSpans: number;
  maxBatchSpans: number;
  exportIntervalMs: number;
  exportTimeoutMs: number;
  resource: Readonly<Record<string, string>>;
  scope: { name: string; version: string };
  clock: Clock;
  logger: Logger;
  /** Something the operator must know (`openlegion status`): the collector stopped taking spans. */
  warn(message: string): void;
}

/** What the exporter did so far (`/metrics` reads it). */
export interface SpanExporterStats {
  queued: number;
  exported: number;
  dropped: Record<DropReason, number>;
}

/**
 * Sends finished spans to an OTLP/HTTP collector as JSON, in batches, off the request path:
 * `add` only pushes onto a bounded queue (a full queue drops the span and counts it). One export
 * is in flight at a time, cut after `exportTimeoutMs`; a batch the collector does not take is
 * dropped and counted, never retried, so a collector that is down or slow costs the host a
 * bounded queue and one open request, and every request is answered as fast as without it.
 */
export class SpanExporter {
  readonly #options: SpanExporterOptions;
  readonly #log: Logger;
  #queue: TelemetrySpan[] = [];
  #inFlight: Promise<void> | undefined;
  #timer: Timer | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #stopped = false;
  /** The collector failed last time: the operator has been told once, until it takes spans again. */
  #failing = false;
  readonly #stats: SpanExporterStats = {
    queued: 0,
    exported: 0,
    dropped: { queue_full: 0, export_failed: 0, rejected: 0 },
  };

  constructor(options: SpanExporterOptions) {
    this.#options = options;
    this.#log = options.logger.child({ component: 'telemetry', collector: safeUrl(options.url) });
  }

  /** Queue a finished span; O(1), never waits. */
  add(span: TelemetrySpan): void {
    if (this.#stopped || this.#queue.length >= this.#options.maxQueueSpans) {
      this.#stats.dropped.queue_full += 1;
      return;
    }
    this.#queue.push(span);
    // A full batch goes out after the current request's work, not in the middle of it.
    if (this.#queue.length >= this.#options.maxBatchSpans && !this.#inFlight && !this.#immediate)
      this.#immediate = setImmediate(() => {
        this.#immediate = undefined;
        void this.flush();
      });
  }

  stats(): SpanExporterStats {
    return { ...this.#stats, queued: this.#queue.length, dropped: { ...this.#stats.dropped } };
  }

  start(): void {
    const tick = () => {
      void this.flush().finally(() => {
        if (!this.#stopped)
          this.#timer = this.#options.clock.setTimeout(tick, this.#options.exportIntervalMs);
      });
    };
    this.#timer = this.#options.clock.setTimeout(tick, this.#options.exportIntervalMs);
  }

  /** Send what is queued (waits for an export already in flight first). */
  async flush(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
    if (this.#queue.length === 0) return;
    this.#inFlight = this.#sendAll().finally(() => {
      this.#inFlight = undefined;
    });
    await this.#inFlight;
  }

  /** Send what is queued once more (bounded by the export timeout), then take no more spans. */
  async stop(): Promise<void> {
    this.#timer?.cancel();
    if (this.#immediate) clearImmediate(this.#immediate);
    await this.flush();
    this.#stopped = true;
  }

  async #sendAll(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#options.maxBatchSpans);
      await this.#send(batch);
    }
  }

  async #send(batch: TelemetrySpan[]): Promise<void> {
    const { url, headers, exportTimeoutMs, resource, scope } = this.#options;
    let failure: string | undefined;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: otlpTraceRequest(batch, resource, scope),
        signal: AbortSignal.timeout(exportTimeoutMs),
      });
      const text = await response.text();
      if (!response.ok) failure = `it answered ${response.status}`;
      else this.#partialSuccess(batch.length, text);
    } catch (error) {
      failure =
        error instanceof Error && error.name === 'TimeoutError'
          ? `no answer within ${exportTimeoutMs} ms`
          : String(error instanceof Error && error.cause ? error.cause : error);
    }
    if (failure === undefined) {
      if (this.#failing) this.#log.info('the OTLP collector takes spans again');
      this.#failing = false;
      return;
    }
    this.#stats.dropped.export_failed += batch.length;
    this.#log.debug({ spans: batch.length, err: failure }, 'spans dropped: the collector did not take them');
    if (!this.#failing) {
      this.#failing = true;
      this.#options.warn(
        `telemetry: the OTLP collector at ${safeUrl(url)} did not take ${batch.length} spans (${failure}); spans are dropped and counted (openlegion_telemetry_spans_dropped_total) until it does`,
      );
    }
  }

  /** OTLP's partial success: the collector took the request but rejected some spans. */
  #partialSuccess(sent: number, text: string): void {
    let rejected = 0;
    if (text.includes('rejectedSpans')) {
      try {
        const parsed = JSON.parse(text) as { partialSuccess?: { rejectedSpans?: unknown } };
        rejected = Math.min(sent, Math.max(0, Number(parsed.partialSuccess?.rejectedSpans) || 0));
      } catch {
        // A body that is not JSON (a protobuf answer) holds no count we can read: all taken.
      }
    }
    this.#stats.exported += sent - rejected;
    this.#stats.dropped.rejected += rejected;
  }
}

/** The URL without credentials or query, for logs and warnings. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}
