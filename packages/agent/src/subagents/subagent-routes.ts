import { OpenLegionError, type SubagentsList, type SubagentView } from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import type { SubagentRecord } from './subagent-types.js';

/** What the route needs of the subagent manager (a type only, so the server's chunk stays small). */
export interface SubagentLister {
  list(): SubagentRecord[];
}

/**
 * `GET /subagents/`: the agent's in-container subagents, running and ended, oldest first
 * (`openlegion subagents AGENT` and REPL `/subagents`, through the host; bearer auth comes from the
 * scope). It waits for the agent's runtime, which holds them.
 */
export function subagentRoutes(subagents: () => Promise<SubagentLister> | undefined) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/subagents/', async (): Promise<SubagentsList> => {
      const pending = subagents();
      if (pending === undefined)
        throw new OpenLegionError('AGENT_NOT_READY', 'the agent is still starting; try again in a moment');
      return { subagents: (await pending).list().map(subagentView) };
    });
  };
}

function subagentView(record: SubagentRecord): SubagentView {
  return {
    id: record.id,
    depth: record.depth,
    role: record.role,
    state: record.state,
    tokens: record.tokens,
    task: record.task,
    started_at: new Date(record.startedAt).toISOString(),
    ended_at: record.endedAt === undefined ? null : new Date(record.endedAt).toISOString(),
  };
}
