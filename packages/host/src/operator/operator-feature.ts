import type { HostFeature } from '../features/index.js';
import { INSTRUCTIONS } from '../instructions/index.js';
import { AGENT_REGISTRY } from '../registry/index.js';
import { registerAgentForwarding } from './agent-forward.js';
import { type OperatorRouteDeps, registerOperatorRoutes } from './operator-routes.js';

/**
 * The operator API's own routes (`/api/status`, `/api/shutdown`) and the agent routes it reaches
 * through the host (`/api/agents/:agent/memory/*`, `/workspace/*`; AGENTS.md and SOUL.md from the
 * host's own copy) as a host feature.
 */
export function operatorFeature(options: OperatorRouteDeps): HostFeature {
  return {
    name: 'operator',
    needs: [INSTRUCTIONS, AGENT_REGISTRY],
    build(context) {
      const instructions = context.need(INSTRUCTIONS);
      const registry = context.need(AGENT_REGISTRY);
      return {
        routes(app) {
          registerOperatorRoutes(app, options);
          registerAgentForwarding(app, { registry, tokens: context.tokens, instructions });
        },
      };
    },
  };
}
