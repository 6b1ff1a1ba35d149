export { type Embedder, normalizeInPlace } from './embed/embedder.js';
export { loadWinkGlove, WINK_GLOVE_PACKAGE, type WordVectors } from './embed/glove-table.js';
export {
  createLocalEmbedder,
  DEFAULT_LOCAL_DIMENSIONS,
  DEFAULT_WORD_VECTOR_SHARE,
  type LocalEmbedderOptions,
} from './embed/local-embedder.js';
export { createOpenAiEmbedder, type OpenAiEmbedderOptions } from './embed/openai-embedder.js';
export { type ChatLlm, createOpenAiChatLlm, type OpenAiChatLlmOptions } from './llm/chat-llm.js';
export { MemoryEngine, type MemoryEngineOptions } from './memory-engine.js';
export {
  ALWAYS_MERGE,
  APPEND_ONLY,
  MERGE_SUPPORTED,
  parseCategoryName,
  TEMPORAL_VERSIONED,
} from './model/category-rules.js';
export {
  BUILTIN_CATEGORIES,
  type FactInput,
  MEMORY_SOURCES,
  type MemoryItem,
  type MemorySource,
  TEMPORAL_TYPES,
  type TemporalType,
  TIERS,
  type Tier,
} from './model/memory-item.js';
export { defaultScopes, GLOBAL_SCOPE, isScope, parseScope, SCOPE_KINDS } from './model/scope.js';
export { DEFAULT_BACKFILL_BATCH, type EmbedProgress } from './ops/backfill.js';
export type { DoctorCheck, DoctorReport } from './ops/doctor.js';
export { type ImportOptions, memoryLineSchema } from './ops/jsonl.js';
export type { MemoryStats } from './ops/stats.js';
export {
  compositeDecay,
  DEFAULT_DECAY_CONFIG,
  type DecayConfig,
  decayMultiplier,
  frequencyScore,
  intrinsicScore,
  recencyScore,
} from './retrieval/decay.js';
export { fuseScores } from './retrieval/fusion.js';
export {
  DEFAULT_RETRIEVAL_CONFIG,
  MAX_LIMIT,
  MAX_QUERY_CHARS,
  type RetrievalConfig,
} from './retrieval/retrieval-config.js';
export type { SearchHit, SearchResult } from './retrieval/search.js';
export type { SearchRequest } from './retrieval/search-request.js';
export {
  captureSession,
  DISTILL_EVERY_SESSIONS,
  distillLessons,
  episodeSessions,
  formatSquadMemory,
  type Lesson,
  parseSessionMemory,
  SESSION_MEMORY_INSTRUCTION,
  SQUAD_LAYER_BUDGETS,
  type SquadLayer,
  type SquadMemoryAccess,
} from './squad/squad-memory.js';
export type { MemoryCategory } from './store/category-store.js';
export type { ItemFilter } from './store/item-repository.js';
export { estimateTokens } from './text/token-estimate.js';
export { createMemoryTools, type MemoryToolsOptions } from './tools/memory-tools.js';
export { type AdmissionConfig, DEFAULT_ADMISSION_CONFIG, TYPE_PRIORS } from './write/admission.js';
export { type Extraction, extractMemories, MAX_EXTRACTED } from './write/extract.js';
export type { FactOutcome, StoreFactsOptions, StoreReport } from './write/store-facts.js';
