export {
  type DropReason,
  SpanExporter,
  type SpanExporterOptions,
  type SpanExporterStats,
} from './span-exporter.js';
export { TELEMETRY, type Telemetry, telemetryFeature, tracesUrl } from './telemetry-feature.js';
export { TelemetryMetrics } from './telemetry-metrics.js';
export { SPAN_KIND, type TelemetrySpan } from './telemetry-span.js';
