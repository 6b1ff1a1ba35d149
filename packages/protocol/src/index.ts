export {
  type AgentSelf,
  type AgentState,
  type AgentStatus,
  agentSelfSchema,
  agentStateSchema,
  agentStatusSchema,
  type ChatRequest,
  chatRequestSchema,
  type HeartbeatRequest,
  type HeartbeatResponse,
  heartbeatRequestSchema,
  heartbeatResponseSchema,
  type SteerRequest,
  type SteerResponse,
  steerRequestSchema,
  steerResponseSchema,
  type TaskRequest,
  taskRequestSchema,
} from './agent-api.js';
export {
  type AgentTool,
  TOOL_GROUPS,
  type ToolContent,
  type ToolContext,
  type ToolGroup,
  type ToolResult,
  textResult,
} from './agent-tool.js';
export type { Channel, ChannelChatRequest, ChannelMesh } from './channel.js';
export { type ChatEvent, type ChatEventType, chatEventSchema, formatSseEvent } from './chat-events.js';
export { type DeepReadonly, deepFreeze } from './deep-readonly.js';
export {
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  errorBody,
  errorBodySchema,
  isErrorCode,
  OpenLegionError,
} from './errors.js';
export {
  AGENT_PORT,
  type AgentInfo,
  agentInfoSchema,
  agentReadyRequestSchema,
  DEFAULT_HOST_PORT,
  type MeshStatus,
  meshStatusSchema,
} from './host-api.js';
export {
  type AgentConfig,
  type MeshConfig,
  type MeshConfigInput,
  meshConfigJsonSchema,
  meshConfigSchema,
  PROVIDER_KINDS,
  type ProviderConfig,
  providerKind,
  resolveModel,
  TIER_NAMES,
  type TierName,
  TOOL_PROFILES,
} from './mesh-config.js';
