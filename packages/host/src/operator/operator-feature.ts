import type { HostFeature } from '../features/index.js';
import type { AgentChatDeps } from '../lanes/index.js';
import { type AgentInstructionAccess, registerAgentForwarding } from './agent-forward.js';
import { type OperatorRouteDeps, registerOperatorRoutes } from './operator-routes.js';

/**
 * The operator API's own routes (`/api/status`, `/api/shutdown`) and the agent routes it reaches
 * through the host (`/api/agents/:agent/memory/*`, `/workspace/*`; AGENTS.md and SOUL.md from the
 * host's own copy) as a host feature.
 */
export function operatorFeature(
  options: OperatorRouteDeps & AgentChatDeps & { instructions: AgentInstructionAccess },
): HostFeature {
  return {
    name: 'operator',
    routes(app) {
      registerOperatorRoutes(app, options);
      registerAgentForwarding(app, options);
    },
  };
}
