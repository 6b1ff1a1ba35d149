export { HeldText } from './held-memories.js';
export {
  createMemoryRecall,
  type MemoryRecall,
  type MemoryRecallDeps,
  RECALL_CANDIDATES,
  type RecallInput,
  recallEvent,
  type TurnRecall,
  withRecallBlock,
} from './memory-recall.js';
export {
  formatRecallBlock,
  isTrustedMemory,
  memoryKey,
  memoryMarker,
  type RecallBlock,
  type RecalledMemory,
  type RecallItem,
  recalledKeys,
} from './recall-block.js';
export { RecallViews, withRecallViews } from './recall-views.js';
export {
  interleave,
  meshSharedRecall,
  SHARED_RECALL_TIMEOUT_MS,
  type SharedRecallSource,
} from './shared-recall.js';
