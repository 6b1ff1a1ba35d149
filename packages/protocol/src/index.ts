export {
  type AgentSelf,
  type AgentState,
  type AgentStatus,
  agentSelfSchema,
  agentStateSchema,
  agentStatusSchema,
  type ChatRequest,
  chatRequestSchema,
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
export { type ChatEvent, type ChatEventType, chatEventSchema, formatSseEvent } from './chat-events.js';
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
