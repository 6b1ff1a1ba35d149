export { type AgentClient, createAgentClient } from './agent-client.js';
export { BODY_LIMIT_BYTES, createHostServer, type HostServerOptions } from './create-host-server.js';
