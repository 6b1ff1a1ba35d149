export { type AgentClient, createAgentClient } from './agent-client.js';
export { type OperatorFeatureOptions, operatorFeature } from './operator-feature.js';
