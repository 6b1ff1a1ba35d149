export { type AgentEnv, parseAgentEnv } from './agent-env.js';
export { type AgentServerDeps, createAgentServer, type ReadyAgent } from './agent-server.js';
export { readAgentVersion } from './agent-version.js';
export {
  buildSystemPrompt,
  type ChatLoop,
  type ChatLoopDeps,
  type ChatTurn,
  createChatLoop,
  type EmitChatEvent,
} from './chat-loop.js';
export { ConversationStore, type StoredMessage, type StoredRole } from './conversation-store.js';
export { createHostClient, type HostClient, type HostClientOptions } from './host-client.js';
export { loadLlmClient } from './llm-client.js';
export { type RunningAgent, startAgent } from './start-agent.js';
