export {
  AGENT_PORT,
  DEFAULT_HOST_PORT,
  agentInfoSchema,
  agentReadyRequestSchema,
  meshStatusSchema,
  type AgentInfo,
  type MeshStatus,
} from './host-api.js';
export {
  agentSelfSchema,
  agentStateSchema,
  agentStatusSchema,
  chatRequestSchema,
  type AgentSelf,
  type AgentState,
  type AgentStatus,
  type ChatRequest,
} from './agent-api.js';
export { chatEventSchema, formatSseEvent, type ChatEvent, type ChatEventType } from './chat-events.js';
export {
  ERROR_CODES,
  OpenLegionError,
  errorBody,
  errorBodySchema,
  isErrorCode,
  type ErrorBody,
  type ErrorCode,
} from './errors.js';
export {
  PROVIDER_KINDS,
  TIER_NAMES,
  TOOL_PROFILES,
  meshConfigJsonSchema,
  meshConfigSchema,
  providerKind,
  resolveModel,
  type AgentConfig,
  type MeshConfig,
  type MeshConfigInput,
  type ProviderConfig,
  type TierName,
} from './mesh-config.js';
