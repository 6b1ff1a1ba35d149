export { type AgentLifecycleState, type AgentRecord, toAgentInfo } from './agent-record.js';
export { AgentRegistry, type AgentRegistryOptions, type AgentStart } from './agent-registry.js';
export { type AgentRunOutcome, type AgentRunRow, AgentRunsRepository } from './agent-runs-repository.js';
export { type AgentRow, type AgentRuntimeKind, AgentsRepository } from './agents-repository.js';
export { AGENT_STATE_CHANGED } from './registry-events.js';
export { AGENT_REGISTRY, registryFeature } from './registry-feature.js';
export {
  openRegistryStore,
  REGISTRY_FEATURE,
  type RegistryStore,
  registryStore,
} from './registry-store.js';
