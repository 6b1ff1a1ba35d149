import { parseRequest } from '@openlegion/infra/http';
import { type MeshConfig, OpenLegionError } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AgentRuntime, agentInstanceName } from './agent-runtime.js';

const logsParams = z.object({ agent: z.string().min(1) });
const logsQuery = z
  .object({
    /** The dashboard's tail shows 200 lines; at most 2,000, so one answer stays small. */
    lines: z.coerce.number().int().min(1).max(2_000).default(200),
  })
  .strict();

/**
 * `GET /api/agents/:agent/logs?lines=200` (operator): the last lines the agent's container (or
 * process) wrote, as `docker logs --tail` gives them, for the dashboard's log tail. What an agent
 * writes is its own (untrusted) text: shown as text, never interpreted.
 */
export function registerAgentLogsRoute(
  app: FastifyInstance,
  deps: { config: MeshConfig; runtime: AgentRuntime },
): void {
  app.get('/api/agents/:agent/logs', { config: { auth: 'operator' } }, async (request) => {
    const { agent } = parseRequest(logsParams, request.params, 'params');
    const { lines } = parseRequest(logsQuery, request.query, 'query');
    if (!deps.config.agents[agent]) {
      const agents = Object.keys(deps.config.agents).join(', ');
      throw new OpenLegionError('AGENT_UNKNOWN', `no agent "${agent}" (agents: ${agents})`);
    }
    const text = await deps.runtime.logs(agentInstanceName(deps.config.mesh.name, agent), lines);
    return { agent, lines: text === '' ? [] : text.split('\n') };
  });
}
