export {
  BREAKER_COOLDOWN_MS,
  BREAKER_FAILURES,
  HARD_PRUNE_GROUPS,
} from './compaction-step.js';
export type { ContextManager, ContextRequest, LlmMessage, PreparedContext } from './context-manager.js';
export type { ContextSettings } from './context-services.js';
export type { ExtractedFact } from './context-state-store.js';
export { contextWindowFor, DEFAULT_CONTEXT_WINDOW_TOKENS } from './context-window.js';
export {
  type ClosableContextManager,
  type ContextManagerDeps,
  createContextManager,
} from './create-context-manager.js';
export { createFastTierCall, FAST_TIER_MODEL, type FastTierCall } from './fast-tier.js';
export {
  type LongResultRequest,
  LongResultSummariser,
  type LongResultSummariserOptions,
  type LongResultSummary,
  SUMMARY_CHUNK_CHARS,
  SUMMARY_MAX_CALLS,
} from './long-result-summariser.js';
export {
  createLcmTools,
  LOSSLESS_DEFAULTS,
  type LosslessSettings,
  lcmRoutes,
  SummaryStore,
} from './lossless/index.js';
export { TokenCounter, type TokenizerKind, tokenizerFor } from './token-counter.js';
