export {
  type MemoryFeatureOptions,
  memoryFeature,
  SHARED_MEMORY,
  SHARED_MEMORY_FILE,
} from './memory-feature.js';
export { checkedScope, SharedMemoryStore, type SharedMemoryStoreOptions } from './shared-memory-store.js';
