export { type TraceEvent, TraceLog, type TraceSummary } from './trace-log.js';
export { TRACE_LOG, tracesFeature } from './traces-feature.js';
