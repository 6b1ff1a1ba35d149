export { type TraceEvent, TraceLog, type TraceSummary } from './trace-log.js';
export { type TracesFeature, tracesFeature } from './traces-feature.js';
