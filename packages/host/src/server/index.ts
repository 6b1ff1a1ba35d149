export { AgentRequestRate, REQUEST_BURST_SECONDS, requestRateOf } from './agent-request-rate.js';
export { AgentSlots, llmCallSlotsOf, type SlotKind, streamSlotsOf } from './agent-slots.js';
export {
  AgentWriteRate,
  MIN_WRITE_COST_BYTES,
  WRITE_BURST_SECONDS,
  writeCost,
  writeRateOf,
} from './agent-write-rate.js';
export { boundedBody } from './bounded-body.js';
export { BODY_LIMIT_BYTES, buildHostApp, type HostAppOptions, type HostRoute } from './build-host-app.js';
export { CallAbort, type CallSignal } from './call-abort.js';
export { abortOnClientClose, callAbortOnClientClose } from './client-abort.js';
export { DeferredListener } from './deferred-listener.js';
export { endWithHost, type HostStreamOptions, openHostStream } from './host-stream.js';
export { isEventStream, type LlmAnswer } from './llm-answer.js';
export { LogBudget } from './log-budget.js';
export { OwnerRowCap, type OwnerRowCapOptions } from './owner-row-cap.js';
export { installProcessGuard } from './process-guard.js';
export { TokenBuckets } from './token-buckets.js';
export {
  type CallTrace,
  callTraceOf,
  formatTraceparent,
  newSpanId,
  otelTraceIdOf,
  spanIdOf,
  turnSpanIdOf,
} from './trace-context.js';
export { sendAnswer, sendUpstream } from './upstream-reply.js';
