import { parseRequest } from '@openlegion/infra/http';
import {
  SELF_INBOX_MESH_PATH,
  type SelfInboxMessage,
  selfInboxMessageSchema,
  TRACE_HEADER,
} from '@openlegion/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAgent } from '../auth/index.js';
import type { Lanes } from '../lanes/index.js';

/**
 * The lane item key of a self-inbox message: scoped to the agent, so one agent's keys never meet
 * another's (or a workflow's, a channel's). Lane item keys are unique in mesh.db and kept with
 * their items, so a key seen once is refused for as long as its lane item is kept.
 */
export const selfInboxKey = (agent: string, key: string) => `self-inbox:${agent}:${key}`;

/**
 * `POST /mesh/self/inbox`: the caller's own lane, no permission needed (it is its own work, paid
 * from its own budget; the lane's queue cap bounds it). The agent posts a subagent's answer here
 * when the turn that spawned it stopped waiting; it retries until the host answers, and the key
 * makes the retries one turn. 202 `queued` the first time, 200 `existing` after.
 */
export function registerSelfInboxRoutes(app: FastifyInstance, lanes: Lanes): void {
  app.post(SELF_INBOX_MESH_PATH, { config: { auth: 'agent' } }, async (request, reply) => {
    const agent = requireAgent(request);
    const body: SelfInboxMessage = parseRequest(selfInboxMessageSchema, request.body);
    const traceHeader = request.headers[TRACE_HEADER];
    const { item, outcome } = await lanes.enqueue({
      agent,
      message: body.message,
      conversationId: body.conversation_id,
      source: 'agent',
      sourceRef: agent,
      idempotencyKey: selfInboxKey(agent, body.key),
      ...(typeof traceHeader === 'string' && traceHeader ? { traceId: traceHeader.slice(0, 100) } : {}),
    });
    const seen = outcome === 'existing';
    return reply
      .code(seen ? 200 : 202)
      .send({ item_id: item.id, trace_id: item.traceId, outcome: seen ? 'existing' : 'queued' });
  });
}
