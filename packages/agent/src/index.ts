export { type AgentEnv, parseAgentEnv } from './agent-env.js';
export { type AgentServerDeps, createAgentServer, type ReadyAgent } from './agent-server.js';
export { readAgentVersion } from './agent-version.js';
export type {
  ContextManager,
  ContextRequest,
  LlmMessage,
  PreparedContext,
} from './context/context-manager.js';
export {
  ConversationStore,
  type StoredMessage,
  type StoredRole,
  type StoredToolCall,
} from './conversation-store.js';
export { createHostClient, type HostClient, type HostClientOptions } from './host-client.js';
export { loadLlmClient } from './llm-client.js';
export {
  type AgentLoop,
  type AgentLoopDeps,
  createAgentLoop,
  type EmitChatEvent,
  type HeartbeatInput,
  type TaskInput,
  type TurnInput,
} from './loop/agent-loop.js';
export { parseDirectives } from './prompt/directives.js';
export { buildSystemPrompt, SILENT_REPLY_TOKEN } from './prompt/system-prompt.js';
export { type AgentTuning, type RunningAgent, startAgent } from './start-agent.js';
export { createAgentTools } from './tool-registry/agent-tools.js';
export { selectTools, TOOL_PROFILE_GROUPS, type ToolProfile } from './tool-registry/tool-profiles.js';
export { scaffoldWorkspace } from './workspace/workspace-scaffold.js';
