import type { HostFeature } from '../features/index.js';
import { type AgentClient, createAgentClient } from './agent-client.js';
import { type OperatorRouteDeps, registerOperatorRoutes } from './operator-routes.js';

export type OperatorFeatureOptions = Omit<OperatorRouteDeps, 'agentClient'> & { agentClient?: AgentClient };

/** The operator API (`/api/status`, the chat relay, `/api/shutdown`) as a host feature. */
export function operatorFeature(options: OperatorFeatureOptions): HostFeature {
  const deps: OperatorRouteDeps = { ...options, agentClient: options.agentClient ?? createAgentClient() };
  return { name: 'operator', routes: (app) => registerOperatorRoutes(app, deps) };
}
