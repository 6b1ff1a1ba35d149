export type { StartProgress } from './agent-launch.js';
export {
  type AgentResources,
  type AgentRuntime,
  type AgentRuntimeKind,
  type AgentSpec,
  agentInstanceName,
  type PreparedMesh,
  type RunningAgent,
} from './agent-runtime.js';
export { type DockerEngineProbe, probeDockerEngine } from './docker-engine-probe.js';
export { isEngineUnreachable, runtimeUnavailableError } from './docker-errors.js';
export { AGENT_LABEL, MESH_LABEL, meshBridgeName, meshNetworkName } from './docker-mesh-network.js';
export { agentVolumeName, DockerRuntime, type DockerRuntimeOptions } from './docker-runtime.js';
export { FLEET, type Fleet, type FleetFeatureOptions, fleetFeature } from './fleet-feature.js';
export { ProcessRuntime, type ProcessRuntimeOptions } from './process-runtime.js';
export { parseByteSize, toDockerLimits } from './resource-limits.js';
export { createRuntime, type RuntimeChoice, removeCrashLeftovers } from './runtime-factory.js';
export { removeSwarmHost, type SwarmHostLaunch, startSwarmHost } from './swarm-host-container.js';
export { HOST_CONTAINER_ENV, SwarmRuntime, type SwarmRuntimeOptions } from './swarm-runtime.js';
export { buildAgentServiceSpec, swarmAgentNames } from './swarm-service-spec.js';
export {
  TEMPORARY_AGENT_JOINED,
  TEMPORARY_AGENT_LEFT,
  type TemporaryAgentJoined,
} from './temporary-agent-events.js';
