export { type TraceEvent, TraceLog, type TraceSummary } from './trace-log.js';
export { TRACE_HEADER, type TracesFeature, tracesFeature } from './traces-feature.js';
