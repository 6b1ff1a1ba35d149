import { parseRequest } from '@openlegion/infra/http';
import { approvalDecisionRequestSchema, TRACE_HEADER, toolApprovalRequestSchema } from '@openlegion/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requireAgent } from '../auth/index.js';
import { abortOnClientClose } from '../server/index.js';
import type { Approvals } from './approvals.js';

const idParams = z.object({ id: z.string().min(1).max(300) });

/** The longest one long poll of an agent is held: well under any proxy's idle timeout. */
const POLL_MAX_MS = 25_000;

export interface ApprovalRouteDeps {
  approvals: Approvals;
  /**
   * How long one long poll is held. The agent streams an `approval` event after each, so it must
   * be well under the lane watchdog and the health monitor's hung time (mesh.yaml `lanes.watchdog_ms`).
   */
  pollMs: number;
}

/** The long-poll window for a lane watchdog of `watchdogMs`: a third of it, at most {@link POLL_MAX_MS}. */
export function approvalPollMs(watchdogMs: number): number {
  return Math.max(100, Math.min(POLL_MAX_MS, Math.floor(watchdogMs / 3)));
}

/**
 * `/api/approvals` (operator: list, approve, reject by id) and `/mesh/approvals` (an agent holds a
 * tool call, long-polls its decision, withdraws it). An agent can only ask and read its own; only
 * the operator's token decides.
 */
export function registerApprovalRoutes(app: FastifyInstance, { approvals, pollMs }: ApprovalRouteDeps): void {
  const operator = { auth: 'operator' } as const;
  const agentAuth = { auth: 'agent' } as const;

  app.get('/api/approvals', { config: operator }, async () => ({ approvals: approvals.pending() }));

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/api/approvals/:id/${decision}`, { config: operator }, async (request) => {
      const { id } = parseRequest(idParams, request.params, 'params');
      const { note } = parseRequest(approvalDecisionRequestSchema, request.body ?? {});
      const approval = await approvals.decide({ id, decision, ...(note !== undefined ? { note } : {}) });
      return { approval, decision };
    });
  }

  app.post('/mesh/approvals', { config: agentAuth }, async (request, reply) => {
    const agent = requireAgent(request);
    const call = parseRequest(toolApprovalRequestSchema, request.body);
    const traceId = traceIdOf(request);
    const approval = approvals.toolCalls.request(agent, {
      tool: call.tool,
      arguments: call.arguments,
      ...(traceId ? { traceId } : {}),
    });
    return reply.code(201).send(approvals.toolCalls.status(agent, approval.id));
  });

  app.get('/mesh/approvals/:id', { config: agentAuth }, async (request, reply) => {
    const agent = requireAgent(request);
    const { id } = parseRequest(idParams, request.params, 'params');
    // An agent that leaves mid-poll frees its waiter at once.
    return approvals.toolCalls.wait(agent, id, pollMs, abortOnClientClose(reply));
  });

  app.delete('/mesh/approvals/:id', { config: agentAuth }, async (request) => {
    const agent = requireAgent(request);
    const { id } = parseRequest(idParams, request.params, 'params');
    return approvals.toolCalls.withdraw(agent, id);
  });
}

/** The trace id the agent passes along, when it is a sane one. */
function traceIdOf(request: FastifyRequest): string | undefined {
  const value = request.headers[TRACE_HEADER];
  return typeof value === 'string' && /^[\w.:@-]{1,100}$/.test(value) ? value : undefined;
}
