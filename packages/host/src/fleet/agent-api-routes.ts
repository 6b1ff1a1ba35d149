import { parseRequest } from '@openlegion/infra/http';
import { type AgentSelf, agentReadyRequestSchema } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAgent } from '../auth/index.js';
import type { AgentRegistry } from '../registry/index.js';

/** The agent-facing mesh API; the agent is identified by its token alone. */
export function registerAgentApiRoutes(
  app: FastifyInstance,
  deps: { registry: AgentRegistry; selfFor: (agent: string) => AgentSelf },
): void {
  const auth = { auth: 'agent' } as const;

  app.get('/mesh/self', { config: auth }, async (request) => deps.selfFor(requireAgent(request)));

  app.post('/mesh/ready', { config: auth }, async (request) => {
    const agent = requireAgent(request);
    const report = parseRequest(agentReadyRequestSchema, request.body ?? {});
    const record = deps.registry.markReady(agent, report.url === undefined ? {} : { url: report.url });
    return { ok: true, agent: record.name, state: record.state };
  });
}
