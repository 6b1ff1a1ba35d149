export { APPROVAL_CHANGED, APPROVALS, Approvals, approvalsFeature } from './approvals/index.js';
export { loadOrCreateOperatorToken, OPERATOR_TOKEN_FILE, requireAgent, TokenRegistry } from './auth/index.js';
export { BLACKBOARD, blackboardFeature } from './blackboard/index.js';
export {
  type ConfigProblem,
  formatConfigProblem,
  type LoadedMeshConfig,
  loadMeshConfig,
  parseMeshConfig,
} from './config/index.js';
export { COST_METER, costsFeature, USAGE_RECORDED } from './costs/index.js';
export {
  EGRESS,
  type Egress,
  EgressPolicy,
  EgressProxy,
  egressFeature,
  installNetworkLockdown,
  type NetworkLock,
  normaliseAddress,
} from './egress/index.js';
export {
  buildFeatures,
  EventBus,
  type FeatureContext,
  FeatureLifecycle,
  type HostFeature,
  OperatorNotices,
  openHostContext,
} from './features/index.js';
export {
  type AgentRuntime,
  type AgentSpec,
  DockerRuntime,
  FLEET,
  type Fleet,
  fleetFeature,
  ProcessRuntime,
  probeDockerEngine,
  type RunningAgent,
  removeCrashLeftovers,
  type StartProgress,
} from './fleet/index.js';
export {
  type AgentClient,
  createAgentClient,
  LANE_ITEM_CHANGED,
  LANES,
  type LaneItem,
  type LaneRequest,
  type Lanes,
  lanesFeature,
} from './lanes/index.js';
export {
  createLlmProxy,
  type LlmFeatureOptions,
  type LlmProxy,
  type LlmProxyOptions,
  llmFeature,
  ProviderUnavailableError,
} from './llm/index.js';
export { MCP_BODY_MAX_BYTES, MCP_REQUESTS_PER_AGENT, mcpFeature } from './mcp/index.js';
export { createMeshHost } from './mesh-host.js';
export type { MeshHost, MeshHostOptions } from './mesh-host-options.js';
export { messagesFeature } from './messages/index.js';
export { createChannelMesh, operatorFeature } from './operator/index.js';
export { MeshPermissions } from './permissions/index.js';
export { PUBSUB, pubsubFeature } from './pubsub/index.js';
export {
  AGENT_REGISTRY,
  type AgentRecord,
  AgentRegistry,
  openRegistryStore,
  registryFeature,
  toAgentInfo,
} from './registry/index.js';
export { environmentSecrets, type SecretReference, type SecretSource } from './secrets/index.js';
export {
  BODY_LIMIT_BYTES,
  buildHostApp,
  type HostAppOptions,
  type HostRoute,
  installProcessGuard,
} from './server/index.js';
export { type SpanExporterStats, TELEMETRY, type Telemetry, telemetryFeature } from './telemetry/index.js';
export { TRACE_LOG, tracesFeature } from './traces/index.js';
export { hostSecrets, Vault } from './vault/index.js';
export { HOST_VERSION } from './version.js';
export {
  inMemoryBlackboard,
  inMemoryEvents,
  type LoadedWorkflow,
  loadWorkflowFile,
  parseWorkflowFile,
  WORKFLOWS,
  type WorkflowBlackboard,
  type WorkflowEvent,
  type WorkflowEvents,
  type WorkflowLanes,
  type WorkflowNotify,
  type Workflows,
  type WorkflowsFeatureOptions,
  workflowProblems,
  workflowsFeature,
} from './workflows/index.js';
