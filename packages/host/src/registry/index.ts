export { type AgentLifecycleState, type AgentRecord, toAgentInfo } from './agent-record.js';
export { AgentRegistry, type AgentRegistryOptions, type AgentStart, type Clock } from './agent-registry.js';
