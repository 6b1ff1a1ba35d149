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
  memoryMarker,
  type RecallBlock,
  type RecalledMemory,
  recalledIds,
} from './recall-block.js';
export { RecallViews, withRecallViews } from './recall-views.js';
