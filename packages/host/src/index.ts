export { loadOrCreateOperatorToken, OPERATOR_TOKEN_FILE, TokenRegistry } from './auth/index.js';
export {
  type ConfigProblem,
  formatConfigProblem,
  type LoadedMeshConfig,
  loadMeshConfig,
  parseMeshConfig,
} from './config/index.js';
export {
  type AgentRuntime,
  type AgentSpec,
  DockerRuntime,
  ProcessRuntime,
  probeDockerEngine,
  type RunningAgent,
} from './fleet/index.js';
export {
  createLlmProxy,
  type LlmProxy,
  type LlmProxyOptions,
  ProviderUnavailableError,
} from './llm/index.js';
export {
  createMeshHost,
  type MeshHost,
  type MeshHostOptions,
  removeCrashLeftovers,
  type StartProgress,
} from './mesh-host.js';
export { type AgentRecord, AgentRegistry, toAgentInfo } from './registry/index.js';
export {
  type AgentClient,
  BODY_LIMIT_BYTES,
  createAgentClient,
  createHostServer,
  type HostServerOptions,
} from './server/index.js';
export { openStore, type Store } from './store/index.js';
export { HOST_VERSION } from './version.js';
