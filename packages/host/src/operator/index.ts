export type { AgentChatDeps } from './agent-chat.js';
export { type AgentClient, createAgentClient } from './agent-client.js';
export { createChannelMesh } from './channel-mesh.js';
export { type OperatorFeatureOptions, operatorFeature } from './operator-feature.js';
