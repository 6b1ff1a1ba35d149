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
  type AgentConfig,
  BROWSER_TIERS,
  type BrowserTier,
  COMPACTION_STRATEGIES,
  type CompactionStrategy,
  TOOL_PROFILES,
} from './agent-config.js';
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
export {
  type ChatEvent,
  type ChatEventType,
  chatEventError,
  chatEventSchema,
  formatSseEvent,
} from './chat-events.js';
export { TIER_NAMES, type TierName } from './config-fields.js';
export {
  CREDENTIAL_NAME,
  type CredentialGrant,
  type CredentialGrants,
  type CredentialPlace,
} from './credential-grant.js';
export { type DeepReadonly, deepFreeze } from './deep-readonly.js';
export {
  ERROR_CODES,
  type ErrorBody,
  type ErrorCode,
  errorBody,
  errorBodySchema,
  isErrorCode,
  keepsMeaningInTurn,
  OpenLegionError,
  turnErrorCode,
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
  type AgentInstructions,
  agentInstructionsSchema,
  INSTRUCTION_FILE_MAX_BYTES,
  INSTRUCTION_FILES,
  type InstructionFile,
  instructionPutResponseSchema,
} from './instructions-api.js';
export {
  agentMessageSchema,
  type BlackboardChange,
  type BlackboardEntry,
  type BlackboardPut,
  blackboardEntrySchema,
  blackboardKeySchema,
  blackboardPutSchema,
  blackboardWatchQuerySchema,
  type MeshEvent,
  meshEventSchema,
  publishRequestSchema,
  pubsubEventsQuerySchema,
  subscribeRequestSchema,
  topicSchema,
} from './mesh-api.js';
export {
  type MeshConfig,
  type MeshConfigInput,
  meshConfigJsonSchema,
  meshConfigSchema,
  PROVIDER_KINDS,
  type ProviderConfig,
  providerKind,
  resolveModel,
} from './mesh-config.js';
export type { BudgetRow, CostsReport, SpendRow, TraceEvent, TraceSummary } from './operator-api.js';
export {
  countWildcards,
  globPatternSchema,
  MAX_PATTERN_LENGTH,
  MAX_PATTERN_WILDCARDS,
  type PatternSyntax,
  patternProblem,
  topicPatternSchema,
} from './pattern-bounds.js';
export {
  matchesInputType,
  stepFallback,
  stepRetries,
  WORKFLOW_INPUT_TYPES,
  type WorkflowDefinition,
  type WorkflowFileInput,
  type WorkflowInput,
  type WorkflowInputType,
  type WorkflowStep,
  workflowFileSchema,
} from './workflow-file.js';
export {
  type ApprovalDecision,
  FINAL_STEP_STATES,
  type OperatorNotice,
  type PendingApproval,
  pendingApprovalSchema,
  WORKFLOW_RUN_STATES,
  WORKFLOW_STEP_STATES,
  type WorkflowListing,
  type WorkflowRunState,
  type WorkflowRunSummary,
  type WorkflowRunView,
  type WorkflowStepState,
  type WorkflowStepView,
  workflowDecisionRequestSchema,
  workflowListingSchema,
  workflowRunRequestSchema,
  workflowRunSummarySchema,
  workflowRunViewSchema,
  workflowStepViewSchema,
} from './workflow-run.js';
