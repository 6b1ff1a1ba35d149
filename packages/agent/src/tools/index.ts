export {
  type CoreTools,
  type CoreToolsOptions,
  createCoreTools,
  WEB_FETCH_MAX_BYTES,
  WEB_FETCH_TIMEOUT_MS,
} from './core-tools.js';
export { createFileTools } from './files/file-tools.js';
export { READ_FILE_MAX_CHARS } from './files/read-file-tool.js';
export { resolveWorkspacePath, type WorkspacePath } from './files/workspace-path.js';
export { createScopedMemoryTools, OWN_SCOPE } from './memory/scoped-memory-tools.js';
export { createBlackboardTools } from './mesh/blackboard-tools.js';
export {
  createMeshClient,
  type MeshCall,
  type MeshClient,
  type MeshClientOptions,
} from './mesh/mesh-client.js';
export { createMeshTools } from './mesh/mesh-tools.js';
export { createMessageTools } from './mesh/message-tools.js';
export { OutputRingBuffer } from './runtime/output-ring-buffer.js';
export {
  MAX_RUNNING_PROCESSES,
  type ManagedProcess,
  PROCESS_MAX_RUNTIME_S,
  PROCESS_OUTPUT_BYTES,
  ProcessRegistry,
  type ProcessRegistryOptions,
} from './runtime/process-registry.js';
export { guardTool, ToolFailure } from './tool-failure.js';
export { createHttpRequestTool } from './web/http-request-tool.js';
export { type FetchedPage, PageFetcher, type ProxySettings, proxyFromEnv } from './web/page-fetcher.js';
export {
  type PageCounts,
  pageCounts,
  type ShingleScore,
  shingleScore,
  shingles,
} from './web/shingle-score.js';
export { tokenOverlap, wordTokens } from './web/token-overlap.js';
export { createWebFetchTool, type WebFetchToolOptions } from './web/web-fetch-tool.js';
